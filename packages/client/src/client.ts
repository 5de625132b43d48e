import type { Instance, SubscriptionFilter } from '@portico/api';
import { subscribeEvents, type EventHandlers, type EventsApi } from './events.js';
import { withEnvironment, type ClientInput } from './environment.js';
import { accountApi, accountsApi, type AccountApi, type AccountsApi } from './resources/accounts.js';
import { auditApi, type AuditApi } from './resources/audit.js';
import { authApi, type AuthApi } from './resources/auth.js';
import { categoriesApi, type CategoriesApi } from './resources/categories.js';
import { complianceLiveApi, type ComplianceLiveApi } from './resources/compliance.js';
import { complianceHistoryApi, type ComplianceHistoryApi } from './resources/compliance-history.js';
import { healthApi, type HealthApi } from './resources/health.js';
import { instanceHistoryApi, type InstanceHistoryApi } from './resources/instance-history.js';
import { instancesApi, type InstancesApi } from './resources/instances.js';
import { licenseApi, type LicenseApi } from './resources/license.js';
import { projectsApi, type ProjectsApi } from './resources/projects.js';
import { repositoriesApi, type RepositoriesApi } from './resources/repositories.js';
import { secretsApi, type SecretsApi } from './resources/secrets.js';
import { ssoProvidersApi, type SsoProvidersApi } from './resources/sso-providers.js';
import { preflightApi, type PreflightApi } from './resources/preflight.js';
import { iconsApi, kubernetesApi, preferencesApi, settingsApi, type IconsApi, type KubernetesApi, type PreferencesApi, type SettingsApi } from './resources/settings.js';
import { rgdsApi, type RgdsApi } from './resources/rgds.js';
import { rgdViewsApi, type RgdViewsApi } from './resources/rgd-views.js';
import { viewsApi, type ViewsApi } from './resources/views.js';
import { createTransport, type Transport } from './transport.js';
import { waitForInstance, type WaitCondition, type WaitForOptions, type WaitTarget } from './wait-for.js';

export type { EventsApi } from './events.js';

export interface PorticoClient {
  readonly baseUrl: string;
  auth: AuthApi;
  accounts: AccountsApi;
  account: AccountApi;
  rgds: RgdsApi & RgdViewsApi;
  projects: ProjectsApi;
  secrets: SecretsApi;
  /** Sign-in providers managed at run time (Server Admin; the list is public). */
  ssoProviders: SsoProvidersApi;
  /** §13: the projects' Git repositories. */
  repositories: RepositoriesApi;
  instances: InstancesApi & InstanceHistoryApi & PreflightApi;
  /** §11.5: the installation's settings, the caller's preferences, and icons; §11.7: the cluster's kinds. */
  settings: SettingsApi;
  preferences: PreferencesApi;
  icons: IconsApi;
  kubernetes: KubernetesApi;
  events: EventsApi;
  health: HealthApi;
  /** Enterprise: the audit trail. */
  audit: AuditApi;
  /** Enterprise: the license, catalog categories and saved views. */
  license: LicenseApi;
  categories: CategoriesApi;
  views: ViewsApi;
  /** Enterprise: compliance (Gatekeeper's templates, constraints, violations, and the violation history). */
  compliance: ComplianceLiveApi & ComplianceHistoryApi;
  /** Any route of the contract by id, typed by its response schema (the escape hatch under the methods). */
  request: Transport;
  /** Resolves with the instance once `condition` (a health such as `'Healthy'`, or a test) holds; see README. */
  waitFor(instance: WaitTarget, condition: WaitCondition, opts?: WaitForOptions): Promise<Instance>;
}

/** A typed client of the Portico API (browser and Node); under Node, PORTICO_SERVER and PORTICO_TOKEN fill in what is left out. */
export function createClient(input: ClientInput = {}): PorticoClient {
  const options = withEnvironment(input);
  const call = createTransport(options);
  const auth = authApi(call, options.baseUrl);
  const instances = { ...instancesApi(call), ...instanceHistoryApi(call, options), ...preflightApi(call) };
  const events: EventsApi = {
    subscribe: ((filter: SubscriptionFilter, handlers?: EventHandlers) =>
      subscribeEvents({ baseUrl: options.baseUrl, wsTicket: auth.wsTicket, WebSocket: options.WebSocket, reconnect: options.reconnect }, filter, handlers)) as EventsApi['subscribe'],
  };
  return {
    baseUrl: options.baseUrl,
    auth,
    accounts: accountsApi(call),
    account: accountApi(call),
    rgds: { ...rgdsApi(call), ...rgdViewsApi(call) },
    projects: projectsApi(call),
    secrets: secretsApi(call),
    ssoProviders: ssoProvidersApi(call),
    repositories: repositoriesApi(call),
    instances,
    settings: settingsApi(call),
    preferences: preferencesApi(call),
    icons: iconsApi(options),
    kubernetes: kubernetesApi(call),
    events,
    health: healthApi(call),
    audit: auditApi(call, options),
    license: licenseApi(call),
    categories: categoriesApi(call),
    views: viewsApi(call),
    compliance: { ...complianceLiveApi(call), ...complianceHistoryApi(call, options) },
    request: call,
    waitFor: (instance, condition, opts) => waitForInstance({ instances, events }, instance, condition, opts),
  };
}
