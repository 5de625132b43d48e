import { routeHandlers } from './types.js';

/** §11.6: sign-in providers managed at run time. The public list is `ssoProviders` of auth.ts. */
export const ssoProviderHandlers = routeHandlers({
  getSsoProvider: ({ portico, actor, params }) => portico.ssoProviders.get(actor, params.name),
  createSsoProvider: ({ portico, actor, body }) => portico.ssoProviders.create(actor, body),
  updateSsoProvider: ({ portico, actor, params, body }) => portico.ssoProviders.update(actor, params.name, body),
  deleteSsoProvider: ({ portico, actor, params }) => portico.ssoProviders.delete(actor, params.name),
});
