import { operationSelector } from '../../../shared/nodeDescription';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description = operationSelector('template', operations, 'getAll');
