import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { SsoProvidersService } from '../auth/sso/index.js';
import type { OperationRow } from './run.js';

type Table<S> = { readonly [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? OperationRow<A, Awaited<R>> : never };

/** A provider's client secret is secret as a whole: the audit hook records it redacted (§12.2). */
const clientSecret = ['clientSecret'] as const;

/** §11.6: the sign-in provider operations, recorded by core like the OSS ones of oss-operations.ts. */
export const ssoProviderOperations: Table<SsoProvidersService> = {
  create: { id: 'ssoProviders.create', actor: 0, secretFields: clientSecret, subject: (_a: Actor, input: api.CreateSsoProviderRequest) => ({ name: input.name }) },
  update: {
    id: 'ssoProviders.update', actor: 0, secretFields: clientSecret,
    subject: (_a: Actor, name: string) => ({ name }),
    input: (_a: Actor, name: string, input: api.UpdateSsoProviderRequest) => ({ ...input, name }),
  },
  delete: { id: 'ssoProviders.delete', actor: 0, subject: (_a: Actor, name: string) => ({ name }), input: (_a: Actor, name: string) => ({ name }) },
};
