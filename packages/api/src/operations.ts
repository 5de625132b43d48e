/**
 * The operation vocabulary as data: every mutating operation Portico performs, with the action and resource its
 * audit record names. Route rows name their operation by id (`operation: 'instances.create'`); core records
 * each one when its service method runs, whatever transport called it. An edition adds its own table.
 */
export interface OperationDefinition {
  /** `create`, `update`, `delete`, `member_add`, `login`, … */
  action: string;
  /** `projects`, `instances`, `secrets`, `accounts`, … */
  resource: string;
}

const op = (action: string, resource: string): OperationDefinition => Object.freeze({ action, resource });

export const operations = Object.freeze({
  'auth.login': op('login', 'session'),
  'auth.tokenExchange': op('login', 'session'),
  'auth.logout': op('logout', 'session'),
  'auth.wsTicket': op('create', 'ws-tickets'),
  'accounts.create': op('create', 'accounts'),
  'accounts.delete': op('delete', 'accounts'),
  'accounts.changePassword': op('password_change', 'accounts'),
  'projects.create': op('create', 'projects'),
  'projects.update': op('update', 'projects'),
  'projects.delete': op('delete', 'projects'),
  'projects.bind': op('member_add', 'members'),
  'projects.unbind': op('member_remove', 'members'),
  'secrets.create': op('create', 'secrets'),
  'secrets.update': op('update', 'secrets'),
  'secrets.delete': op('delete', 'secrets'),
  'instances.create': op('create', 'instances'),
  'instances.update': op('update', 'instances'),
  'instances.delete': op('delete', 'instances'),
  'ssoProviders.create': op('create', 'sso-providers'),
  'ssoProviders.update': op('update', 'sso-providers'),
  'ssoProviders.delete': op('delete', 'sso-providers'),
  'repositories.create': op('create', 'repositories'),
  'repositories.update': op('update', 'repositories'),
  'repositories.delete': op('delete', 'repositories'),
  'tokens.create': op('create', 'tokens'),
  'tokens.delete': op('delete', 'tokens'),
  'preferences.update': op('update', 'preferences'),
} satisfies Record<string, OperationDefinition>);

export type OperationId = keyof typeof operations;
