import { operationSelector } from '../../../shared/nodeDescription';
import * as send from './send.operation';
import * as sendAlternative from './sendAlternative.operation';
import * as sendDashboard from './sendDashboard.operation';
import * as sendTemplate from './sendTemplate.operation';

export const operations = { send, sendTemplate, sendDashboard, sendAlternative };

export const description = operationSelector('message', operations, 'send');
