import type { ApiResourceList, RouteQueryInput, Settings, UpdatePreferencesRequest, UserPreferences } from '@portico/api';
import { download } from '../download.js';
import type { CallOptions, ClientOptions } from '../options.js';
import { trimBase } from '../paths.js';
import type { Transport } from '../transport.js';

export interface SettingsApi {
  /** `GET /api/v1/settings`: the installation's organization. */
  get(opts?: CallOptions): Promise<Settings>;
}

export interface PreferencesApi {
  /** `GET /api/v1/users/preferences`: the caller's favourite and recent RGDs, newest first. */
  get(opts?: CallOptions): Promise<UserPreferences>;
  /** `PUT /api/v1/users/preferences`: a list left out keeps what is stored; answers what was stored (10 and 20 at most). */
  update(input: UpdatePreferencesRequest, opts?: CallOptions): Promise<UserPreferences>;
}

export interface IconsApi {
  /** Where an icon is served (public: an `<img src>` needs no token). */
  url(slug: string): string;
  /** The SVG text of an icon; rejects with 404 NOT_FOUND for an unknown slug. */
  get(slug: string, opts?: Omit<CallOptions, 'timeoutMs'>): Promise<string>;
}

export interface KubernetesApi {
  /** `GET /api/v1/kubernetes/api-resources`: the kinds the cluster serves (Server Admin, or compliance writers). */
  apiResources(query?: RouteQueryInput<'apiResources'>, opts?: CallOptions): Promise<ApiResourceList>;
}

export const settingsApi = (call: Transport): SettingsApi => ({
  get: (opts) => call('getSettings', {}, opts),
});

export const preferencesApi = (call: Transport): PreferencesApi => ({
  get: (opts) => call('getPreferences', {}, opts),
  update: (input, opts) => call('updatePreferences', { body: input }, opts),
});

export const iconsApi = (options: ClientOptions): IconsApi => {
  const path = (slug: string) => `/api/v1/icons/${encodeURIComponent(slug)}`;
  return {
    url: (slug) => `${trimBase(options.baseUrl)}${path(slug)}`,
    async get(slug, opts = {}) {
      // Not JSON: read as a download (same headers and error envelope), then as text.
      const svg = await download(options, path(slug), {}, opts, `${slug}.svg`);
      return new Response(svg.body).text();
    },
  };
};

export const kubernetesApi = (call: Transport): KubernetesApi => ({
  apiResources: (query = {}, opts) => call('apiResources', { query: { ...query } }, opts),
});
