import * as api from '@portico/api';
import type { Actor } from '../../actor.js';
import { retryOnConflict } from '../../cluster/retry.js';
import { conflict, forbidden, isPorticoError, notFound, validationFailed } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { resources, type Cluster, type KubeObject } from '../../ports/cluster.js';
import { parseInput } from '../../validation.js';
import { providerListItem } from '../oidc/provider-set.js';
import type { OidcProviderSettings } from '../oidc/settings.js';
import {
  CLIENT_ID, CLIENT_SECRET, configMapData, hasClientSecret, isProviderObject, objectNameOf, presentOnly, providerLabels, scopesOf,
} from './provider-objects.js';
import type { SsoProviderRegistry } from './provider-registry.js';

/** §11.6: a Server Admin (policy `settings`) manages the sign-in providers; none of its answers holds a secret. */
export interface SsoProvidersService {
  get(actor: Actor, name: string): api.SsoProviderDetail;
  create(actor: Actor, input: api.CreateSsoProviderRequest): Promise<api.SsoProviderDetail>;
  /** Replaces the settings; an empty or absent `clientSecret` keeps the stored one, `none` removes it. */
  update(actor: Actor, name: string, input: api.UpdateSsoProviderRequest): Promise<api.SsoProviderDetail>;
  /** Its sign-ins in progress end; the sessions it made stay. */
  delete(actor: Actor, name: string): Promise<void>;
}

export interface SsoProvidersDeps {
  cluster: Cluster;
  namespace: string;
  registry: SsoProviderRegistry;
  /** The providers of the environment: listed, read-only. */
  fixed: readonly OidcProviderSettings[];
  authz: { can(actor: Actor, action: string, object: string): boolean };
  /** The RBAC object of the `settings` resource. */
  settingsObject: string;
  logger: Logger;
}

const encode = (value: string) => Buffer.from(value, 'utf8').toString('base64');

/** What the provider's admin reads: the listed facts, and the endpoints when they are set by hand. */
function providerView(settings: OidcProviderSettings): api.SsoProviderDetail {
  const { endpoints } = settings;
  return endpoints
    ? { ...providerListItem(settings), authorizationURL: endpoints.authorization, tokenURL: endpoints.token, jwksURL: endpoints.jwks }
    : providerListItem(settings);
}

export function createSsoProviders(deps: SsoProvidersDeps): SsoProvidersService {
  const { cluster, namespace, registry } = deps;
  const log = deps.logger.child({ module: 'sso-providers' });
  const fixed = new Map(deps.fixed.map((p) => [p.name, p]));

  const allow = (actor: Actor, action: 'get' | 'create' | 'update' | 'delete') => {
    if (!deps.authz.can(actor, action, deps.settingsObject)) throw forbidden(`${action} on sign-in providers is not allowed`, { resource: 'settings', action });
  };
  const readOnly = (name: string) => {
    const env = fixed.get(name);
    if (env) throw conflict(`sign-in provider "${name}" is configured by ${env.setting} and cannot be changed through the API`, { name, setting: env.setting });
  };
  const getProviderConfigMap = async (name: string) => {
    const found = await cluster.get(resources.configMap, objectNameOf(name), namespace);
    if (!found || !isProviderObject(found)) throw notFound('sso provider', name);
    return found;
  };

  /** Writes the provider's Secret: `undefined` leaves a key as it is, `null` removes it. */
  const writeSecret = (name: string, values: Record<string, string | null | undefined>) =>
    retryOnConflict(async (): Promise<KubeObject> => {
      const objectName = objectNameOf(name);
      const changes = Object.entries(values).filter((e): e is [string, string | null] => e[1] !== undefined);
      const existing = await cluster.get(resources.secret, objectName, namespace);
      if (!existing) {
        const data = Object.fromEntries(changes.filter((e): e is [string, string] => e[1] !== null).map(([k, v]) => [k, encode(v)]));
        return cluster.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: objectName, namespace, labels: providerLabels }, data });
      }
      const data = Object.fromEntries(changes.map(([k, v]) => [k, v === null ? null : encode(v)]));
      return cluster.patch(resources.secret, objectName, { metadata: { labels: providerLabels }, data }, { namespace, resourceVersion: existing.metadata.resourceVersion });
    });

  /** What the provider looks like once written: from the request, as the registry will read it back. */
  const detailOf = (name: string, input: api.UpdateSsoProviderRequest): api.SsoProviderDetail => {
    const settings: OidcProviderSettings = {
      name, displayName: input.displayName ?? name, issuer: input.issuerURL, clientId: input.clientID,
      clientSecret: { from: 'secret', secret: objectNameOf(name), key: CLIENT_SECRET },
      tokenEndpointAuthMethod: input.tokenEndpointAuthMethod, scopes: scopesOf(input.scopes), groupsClaim: 'groups',
      serverAdminGroups: [], redirectUri: input.redirectURL,
    };
    if (input.authorizationURL && input.tokenURL && input.jwksURL) settings.endpoints = { authorization: input.authorizationURL, token: input.tokenURL, jwks: input.jwksURL };
    return providerView(settings);
  };

  return {
    get(actor, name) {
      allow(actor, 'get');
      const found = fixed.get(name) ?? registry.known().find((p) => p.name === name);
      if (!found) throw notFound('sso provider', name);
      return providerView(found);
    },

    async create(actor, raw) {
      allow(actor, 'create');
      const input = parseInput(api.CreateSsoProviderRequest, raw);
      readOnly(input.name);
      // The ConfigMap claims the name: of two admins adding the same name at once, one gets 409 before any Secret is written.
      let configMap: KubeObject;
      try {
        configMap = await cluster.create(resources.configMap, {
          apiVersion: 'v1', kind: 'ConfigMap',
          metadata: { name: objectNameOf(input.name), namespace, labels: providerLabels },
          data: presentOnly(configMapData(input)),
        });
      } catch (e) {
        if (isPorticoError(e) && e.code === 'CONFLICT') throw conflict(`sign-in provider "${input.name}" already exists`, { name: input.name });
        throw e;
      }
      let secret: KubeObject;
      try {
        // A Secret left by an earlier, interrupted removal is overwritten whole.
        secret = await writeSecret(input.name, { [CLIENT_ID]: input.clientID, [CLIENT_SECRET]: input.clientSecret ?? null });
      } catch (e) {
        await cluster.delete(resources.configMap, configMap.metadata.name, namespace).catch((err: unknown) =>
          log.warn({ provider: input.name, err: (err as Error).message }, 'could not remove the ConfigMap of a provider whose Secret was not written'),
        );
        throw e;
      }
      await registry.caughtUp(input.name, { configMap: { resourceVersion: configMap.metadata.resourceVersion! }, secret: { resourceVersion: secret.metadata.resourceVersion! } });
      return detailOf(input.name, input);
    },

    async update(actor, name, raw) {
      allow(actor, 'update');
      const input = parseInput(api.UpdateSsoProviderRequest, raw);
      if (input.name !== undefined && input.name !== name) {
        const reason = `must be the provider's name "${name}" (a provider cannot be renamed)`;
        throw validationFailed({ name: reason }, `invalid request body field "name": ${reason}`);
      }
      readOnly(name);
      const configMap = await retryOnConflict(async () => {
        const current = await getProviderConfigMap(name);
        if (input.tokenEndpointAuthMethod === 'client_secret_basic' && input.clientSecret === undefined) {
          const stored = await cluster.get(resources.secret, objectNameOf(name), namespace);
          if (!hasClientSecret(stored)) {
            const reason = 'is required for client_secret_basic (none is stored)';
            throw validationFailed({ clientSecret: reason }, `invalid request body field "clientSecret": ${reason}`);
          }
        }
        return cluster.patch(resources.configMap, current.metadata.name, { data: configMapData(input) }, { namespace, resourceVersion: current.metadata.resourceVersion });
      });
      const secret = await writeSecret(name, {
        [CLIENT_ID]: input.clientID,
        [CLIENT_SECRET]: input.tokenEndpointAuthMethod === 'none' ? null : input.clientSecret,
      });
      await registry.caughtUp(name, { configMap: { resourceVersion: configMap.metadata.resourceVersion! }, secret: { resourceVersion: secret.metadata.resourceVersion! } });
      return detailOf(name, input);
    },

    async delete(actor, name) {
      allow(actor, 'delete');
      readOnly(name);
      const configMap = await getProviderConfigMap(name);
      // The ConfigMap first: without it the provider is gone at once, whatever becomes of its Secret.
      try {
        await cluster.delete(resources.configMap, configMap.metadata.name, namespace);
      } catch (e) {
        if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('sso provider', name);
        throw e;
      }
      await cluster.delete(resources.secret, objectNameOf(name), namespace).catch((e: unknown) => {
        if (!(isPorticoError(e) && e.code === 'NOT_FOUND')) throw e;
      });
      await registry.caughtUp(name, { configMap: { deleted: true }, secret: { deleted: true } });
    },
  };
}
