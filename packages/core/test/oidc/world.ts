import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createAuth } from '../../src/auth/index.js';
import { createOidc, loadOidcSettings } from '../../src/auth/oidc/index.js';
import { loadConfig } from '../../src/config.js';
import type { Authorizer } from '../../src/types.js';
import { captureLogger, fakeAuthorizer, fakeCluster } from '../auth/fakes.js';

export const PUBLIC_URL = 'http://portico.test';
export const CALLBACK = `${PUBLIC_URL}/api/v1/auth/oidc/callback`;
export const ctx = { ip: '203.0.113.7', requestId: 'req-oidc' };

/**
 * The auth module with one OIDC provider configured through the `PORTICO_OIDC_*` variables, over a memory
 * store and a fake cluster.
 */
export async function oidcWorld(opts: {
  issuer: string;
  clientSecret?: string;
  env?: Record<string, string>;
  configEnv?: Record<string, string>;
  authz?: Authorizer;
  now?: () => number;
}) {
  const config = loadConfig({ PORTICO_PROFILE: 'development', PORTICO_NAMESPACE: 'portico-test', ADMIN_PASSWORD: 'admin-password-123', ...opts.configEnv });
  const env: Record<string, string> = {
    PORTICO_OIDC_NAME: 'corp',
    PORTICO_OIDC_DISPLAY_NAME: 'Corporate sign-in',
    PORTICO_OIDC_ISSUER: opts.issuer,
    PORTICO_OIDC_CLIENT_ID: 'portico',
    PORTICO_PUBLIC_URL: PUBLIC_URL,
    ...(opts.clientSecret ? { PORTICO_OIDC_CLIENT_SECRET: opts.clientSecret } : {}),
    ...opts.env,
  };
  const providers = loadOidcSettings({ config, env });
  const kv = createMemoryKeyValue({ now: opts.now });
  const cluster = fakeCluster();
  const { logger, lines } = captureLogger();
  const authz = opts.authz ?? fakeAuthorizer();
  const identityProviders = createOidc({ providers, config, kv, cluster, logger, now: opts.now });
  const auth = await createAuth({ config, cluster, kv, authz, logger, identityProviders, now: opts.now });
  return { config, providers, kv, cluster, lines, auth };
}

/** The query of a URL as a plain object. */
export const queryOf = (url: string) => Object.fromEntries(new URL(url, PUBLIC_URL).searchParams);

/** Resolves to the error a promise rejects with (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; status: number; details: Record<string, unknown>; retryAfter?: number }> {
  try {
    await p;
  } catch (e) {
    return e as never;
  }
  throw new Error('expected a rejection');
}
