import type { OperationDefinition } from '../operations.js';

const op = (action: string, resource: string): OperationDefinition => Object.freeze({ action, resource });

/** The Enterprise operations (the OSS ones are `@portico/api`'s `operations`): what each Enterprise write records. */
export const enterpriseOperations = Object.freeze({
  'license.apply': op('license_update', 'license'),
  'categories.create': op('create', 'categories'),
  'categories.update': op('update', 'categories'),
  'categories.delete': op('delete', 'categories'),
  'views.create': op('create', 'views'),
  'views.update': op('update', 'views'),
  'views.delete': op('delete', 'views'),
  'audit.config': op('config_update', 'audit'),
  'audit.erase': op('erase', 'audit'),
  'constraints.create': op('create', 'constraints'),
  'constraints.enforcement': op('enforcement_change', 'constraints'),
} satisfies Record<string, OperationDefinition>);

export type EnterpriseOperationId = keyof typeof enterpriseOperations;
