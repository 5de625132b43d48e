import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { PreferencesService } from '../types.js';
import type { OperationRow } from './run.js';

type Table<S> = { readonly [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? OperationRow<A, Awaited<R>> : never };

/** §11.5: a user's own preferences, named after the user, recorded by core like the OSS operations. */
export const preferenceOperations: Table<PreferencesService> = {
  update: { id: 'preferences.update', actor: 0, subject: (actor: Actor) => ({ name: actor.id }), input: (_a: Actor, input: api.UpdatePreferencesRequest) => input },
};
