export * as listSearch from './listSearch';
export * as resourceMapping from './resourceMapping';
export * as credentialTest from '../../shared/credentialTests';
