import * as message from './message';
import * as template from './template';

/** Every resource of the node with its operations; the router and the description read this. */
export const resources = { message: message.operations, template: template.operations };

export const resourceDescriptions = [...message.description, ...template.description];
