import { accountHandlers } from './account.js';
import { accountsHandlers } from './accounts.js';
import { authHandlers } from './auth.js';
import { instancesHandlers } from './instances.js';
import { instanceHistoryHandlers } from './instance-history.js';
import { operationsHandlers } from './operations.js';
import { projectsHandlers } from './projects.js';
import { projectTokenHandlers } from './project-tokens.js';
import { repositoryHandlers } from './repositories.js';
import { rgdsHandlers } from './rgds.js';
import { secretsHandlers } from './secrets.js';
import { ssoProviderHandlers } from './sso-providers.js';
import { preflightHandlers } from './preflight.js';
import { settingsHandlers } from './settings.js';
import type { Handler } from './types.js';

/**
 * One handler per route id of the table, keyed by id. Enterprise routes have none: the edition gate answers
 * them. `createServer` refuses to start when a route of the table is missing here.
 */
export const handlers: Readonly<Record<string, Handler>> = {
  ...authHandlers,
  ...accountsHandlers,
  ...accountHandlers,
  ...rgdsHandlers,
  ...projectsHandlers,
  ...projectTokenHandlers,
  ...repositoryHandlers,
  ...secretsHandlers,
  ...instancesHandlers,
  ...instanceHistoryHandlers,
  ...operationsHandlers,
  ...ssoProviderHandlers,
  ...preflightHandlers,
  ...settingsHandlers,
};
