import type * as api from '@portico/api';
import type { PorticoConfig } from '../../config.js';
import { badRequest, isPorticoError, notFound, unauthorized, unavailable } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Cluster } from '../../ports/cluster.js';
import type { KeyValue } from '../../ports/keyvalue.js';
import type { RequestContext } from '../../types.js';
import type { IdentityProviders } from '../identity-providers.js';
import { createSecretStore } from '../secrets.js';
import { readClientSecret } from './client-secret.js';
import { sameIssuer } from './discovery.js';
import { createFlowStore, pkceChallenge, randomToken, type PendingSignIn, type SignInOrigin } from './flow-store.js';
import { IdpHttpError } from './http.js';
import { groupsFrom, hasClaim, identityFrom } from './identity.js';
import { IdTokenError, userinfoClaims, verifyIdToken } from './id-token.js';
import { createProviderSet, loginUrlOf, providerListItem, type Provider, type RuntimeProviderSource } from './provider-set.js';
import { validateRedirect, withParams } from './safe-redirect.js';
import type { OidcProviderSettings } from './settings.js';
import { exchangeCode } from './token-endpoint.js';

export interface OidcDeps {
  /** The providers of the environment (file and variables), fixed for the process's life. */
  providers: readonly OidcProviderSettings[];
  /** Providers managed at run time (§11.6), read at every use so a change applies at once. */
  runtime?: RuntimeProviderSource;
  /** `allowedRedirectOrigins`, and the namespace of the `portico-oidc` Secret. */
  config: PorticoConfig;
  kv: KeyValue;
  /** Where the `portico-oidc` Secret is read from. */
  cluster: Cluster;
  logger: Logger;
  now?: () => number;
}

const INVALID_STATE = 'invalid or expired sign-in state';
const NOT_CONFIGURED = 'no identity provider is configured';
const INVALID_CODE = 'invalid or expired code';

/** Provider errors passed on by name (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6); any other becomes `idp_error`. */
const PASSED_ON_ERRORS = new Set([
  'access_denied', 'login_required', 'consent_required', 'interaction_required', 'account_selection_required',
  'temporarily_unavailable', 'server_error',
]);

/** A sign-in that ended at the callback: the browser goes back to its redirect with `?error=<code>`. */
class SignInFailure extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * Sign-in through OpenID Connect providers: authorization code flow with PKCE S256, single-use `state` and
 * `nonce`, ID tokens verified against the provider's JWKS, and a one-time code (30 s) that the frontend
 * redeems for a Portico token. Plugs into createAuth as its `identityProviders`.
 */
export function createOidc(deps: OidcDeps): IdentityProviders {
  const { config, kv, cluster } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ module: 'oidc' });
  const secrets = createSecretStore(cluster, config.kubernetes.namespace);
  const flows = createFlowStore(kv, now);
  const providers = createProviderSet(deps.providers, deps.runtime, now);

  const pick = (name: string | undefined): Provider => {
    if (name !== undefined && name !== '') {
      const found = providers.get(name);
      if (!found) throw notFound('oidc provider', name);
      return found;
    }
    const all = providers.all();
    if (all.length === 1) return all[0]!;
    if (all.length === 0) throw badRequest(NOT_CONFIGURED);
    throw badRequest('provider is required', { parameter: 'provider', providers: all.map((p) => p.settings.name) });
  };

  /** Whether the provider a sign-in went through is still the one offered under its name (codes of an older release name none). */
  const stillOffered = (origin: Partial<SignInOrigin>) => {
    if (origin.provider === undefined) return true;
    const provider = providers.get(origin.provider);
    return provider !== undefined && provider.settings.uid === origin.providerUid;
  };

  const complete = async ({ settings, discovery }: Provider, pending: PendingSignIn, query: api.OidcCallbackQuery) => {
    if (query.error !== undefined) {
      throw new SignInFailure(PASSED_ON_ERRORS.has(query.error) ? query.error : 'idp_error', 'the provider answered with an error');
    }
    const metadata = await discovery.metadata().catch(() => {
      throw new SignInFailure('idp_unavailable', 'discovery failed');
    });
    // RFC 9207: an `iss` naming another issuer (or none, from a provider that always sends it) means the answer
    // may not come from the provider this sign-in went to (mix-up attack).
    if (query.iss === undefined ? metadata.issParameterSupported : !sameIssuer(query.iss, metadata.issuer)) {
      throw new SignInFailure('invalid_response', 'iss is missing or does not match');
    }
    if (!query.code) throw new SignInFailure('invalid_response', 'no code in the callback');

    let clientSecret: string | undefined;
    try {
      clientSecret = await readClientSecret(settings.clientSecret, secrets);
    } catch (e) {
      if (isPorticoError(e) && e.code === 'SERVICE_UNAVAILABLE') throw e;
      throw new SignInFailure('configuration_error', 'the client secret could not be read');
    }

    let tokens;
    try {
      tokens = await exchangeCode(settings, metadata, { code: query.code, verifier: pending.verifier, clientSecret });
    } catch (e) {
      if (!(e instanceof IdpHttpError) || e.status === 0 || e.status >= 500) discovery.invalidate();
      const detail = e instanceof IdpHttpError ? `${e.message}${e.oauthError ? ` ${e.oauthError}` : ''}` : (e as Error).message;
      throw new SignInFailure('token_exchange_failed', `token endpoint: ${detail}`);
    }

    let claims: Record<string, unknown>;
    try {
      claims = { ...(await verifyIdToken(tokens.idToken, { keys: await discovery.keys(), metadata, clientId: settings.clientId, nonce: pending.nonce, now })) };
    } catch (e) {
      discovery.invalidate();
      throw new SignInFailure('invalid_id_token', e instanceof IdTokenError ? e.message : 'ID token could not be verified');
    }

    const missing = !hasClaim(claims, settings.groupsClaim) || claims.email === undefined || claims.name === undefined;
    if (missing && tokens.accessToken && metadata.userinfoEndpoint) {
      try {
        claims = { ...(await userinfoClaims(metadata, tokens.accessToken, String(claims.sub))), ...claims };
      } catch {
        throw new SignInFailure('userinfo_failed', 'userinfo could not be read');
      }
    }

    const { groups, truncated } = groupsFrom(claims, settings.groupsClaim);
    if (truncated) log.warn({ provider: settings.name, kept: groups.length }, 'too many groups in the claim; the rest are ignored');
    const identity = identityFrom(settings.name, claims, groups);
    if (!identity) throw new SignInFailure('invalid_id_token', 'unusable sub claim');
    return identity;
  };

  return {
    options: () => {
      const all = providers.all();
      return {
        providers: all.map(({ settings }) => settings.name),
        options: all.map(({ settings }) => ({ name: settings.name, displayName: settings.displayName, loginUrl: loginUrlOf(settings.name) })),
        localLoginEnabled: true,
      };
    },

    providerList: () => providers.all().map(({ settings }) => providerListItem(settings)),

    async login(query, ctx) {
      const redirect = validateRedirect(query.redirect, config.allowedRedirectOrigins);
      const { settings, discovery } = pick(query.provider);
      const metadata = await discovery.metadata().catch((e: unknown) => {
        log.warn({ provider: settings.name, err: (e as Error).message, requestId: ctx.requestId }, 'OIDC discovery failed');
        throw unavailable(`identity provider ${settings.name}`, 5);
      });
      const verifier = randomToken();
      const nonce = randomToken();
      const state = await flows.savePending({ provider: settings.name, providerUid: settings.uid, verifier, nonce, redirect });
      const url = new URL(metadata.authorizationEndpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', settings.redirectUri);
      url.searchParams.set('scope', settings.scopes.join(' '));
      url.searchParams.set('state', state);
      url.searchParams.set('nonce', nonce);
      url.searchParams.set('code_challenge', pkceChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return url.href;
    },

    async callback(query, ctx) {
      if (!query.state) throw badRequest(INVALID_STATE, { parameter: 'state' });
      const pending = await flows.takePending(query.state);
      const provider = pending && providers.get(pending.provider);
      // A provider removed since the sign-in began (even if another took its name) ends it here.
      if (!pending || !provider || !stillOffered(pending)) throw badRequest(INVALID_STATE, { parameter: 'state' });
      try {
        const identity = await complete(provider, pending, query);
        const code = await flows.issueCode(identity, { provider: pending.provider, providerUid: pending.providerUid });
        log.info({ provider: provider.settings.name, user: identity.id, groups: identity.groups.length, ip: ctx.ip, requestId: ctx.requestId }, 'OIDC sign-in');
        return withParams(pending.redirect, { code });
      } catch (e) {
        if (!(e instanceof SignInFailure)) throw e;
        log.warn({ provider: provider.settings.name, error: e.code, reason: e.reason, ip: ctx.ip, requestId: ctx.requestId }, 'OIDC sign-in failed');
        return withParams(pending.redirect, { error: e.code });
      }
    },

    async exchange(input) {
      if (providers.all().length === 0) throw badRequest(NOT_CONFIGURED);
      const redeemed = await flows.redeemCode(input?.code);
      // The code is the last step of a sign-in: one whose provider was removed since ends here too.
      if (!redeemed || !stillOffered(redeemed.origin)) throw unauthorized(INVALID_CODE);
      return redeemed.identity;
    },
  };
}
