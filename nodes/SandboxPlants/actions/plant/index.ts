import { operationSelector } from '../../../shared/nodeDescription';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as getAll from './getAll.operation';

export const operations = { create, getAll, delete: del };

export const description = operationSelector('plant', operations, 'create');
