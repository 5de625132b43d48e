import { r } from './route-def.js';
import { ApiResourceList, ApiResourcesQuery, IconParams, Settings, UpdatePreferencesRequest, UserPreferences } from './settings.js';

/** §11.5 settings, preferences and icons; §11.7 cluster discovery. */
export const settingsRoutes = [
  r({ id: 'getSettings', method: 'GET', path: '/api/v1/settings', auth: 'user', tag: 'settings', summary: 'The installation\'s settings a console shows (organization)', status: 200, response: Settings }),
  r({ id: 'getPreferences', method: 'GET', path: '/api/v1/users/preferences', auth: 'user', tag: 'settings', summary: 'The caller\'s favourite and recent RGDs, newest first', status: 200, response: UserPreferences }),
  r({ id: 'updatePreferences', method: 'PUT', path: '/api/v1/users/preferences', auth: 'user', tag: 'settings', summary: 'Store the caller\'s favourite (10) and recent (20) RGDs for 90 days; answers what was stored', body: UpdatePreferencesRequest, status: 200, response: UserPreferences, operation: 'preferences.update' }),
  // The answer is an SVG document, not JSON (no response schema): the handler streams it with its own headers.
  r({ id: 'getIcon', method: 'GET', path: '/api/v1/icons/{slug}', auth: 'none', tag: 'settings', summary: 'An icon (image/svg+xml): the registry ConfigMaps\' or Portico\'s own generic set; public', params: IconParams, status: 200 }),
  r({ id: 'apiResources', method: 'GET', path: '/api/v1/kubernetes/api-resources', auth: 'user', tag: 'settings', summary: 'The kinds the cluster serves, by group (Server Admin, or whoever may create compliance constraints)', query: ApiResourcesQuery, status: 200, response: ApiResourceList }),
] as const;

