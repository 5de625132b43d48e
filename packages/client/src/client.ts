import type { SubscriptionFilter } from '@portico/api';
import { subscribeEvents, type EventHandlers, type EventSubscription } from './events.js';
import type { ClientOptions } from './options.js';
import { accountApi, accountsApi, type AccountApi, type AccountsApi } from './resources/accounts.js';
import { authApi, type AuthApi } from './resources/auth.js';
import { healthApi, type HealthApi } from './resources/health.js';
import { instancesApi, type InstancesApi } from './resources/instances.js';
import { projectsApi, type ProjectsApi } from './resources/projects.js';
import { rgdsApi, type RgdsApi } from './resources/rgds.js';
import { createTransport, type Transport } from './transport.js';

export interface EventsApi {
  /** Live server events for `filter`, reconnecting with a fresh ticket after every drop. */
  subscribe(filter: SubscriptionFilter, handlers?: EventHandlers): EventSubscription;
}

export interface PorticoClient {
  readonly baseUrl: string;
  auth: AuthApi;
  accounts: AccountsApi;
  account: AccountApi;
  rgds: RgdsApi;
  projects: ProjectsApi;
  instances: InstancesApi;
  events: EventsApi;
  health: HealthApi;
  /** Any route of the contract by id, typed by its response schema (the escape hatch under the methods). */
  request: Transport;
}

/** A typed client of the Portico API (browser and Node). */
export function createClient(options: ClientOptions): PorticoClient {
  const call = createTransport(options);
  const auth = authApi(call, options.baseUrl);
  return {
    baseUrl: options.baseUrl,
    auth,
    accounts: accountsApi(call),
    account: accountApi(call),
    rgds: rgdsApi(call),
    projects: projectsApi(call),
    instances: instancesApi(call),
    events: {
      subscribe: (filter, handlers) =>
        subscribeEvents({ baseUrl: options.baseUrl, wsTicket: auth.wsTicket, WebSocket: options.WebSocket, reconnect: options.reconnect }, filter, handlers),
    },
    health: healthApi(call),
    request: call,
  };
}
