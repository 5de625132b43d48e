import type { Actor } from '../actor.js';
import { badRequest, isPorticoError } from '../errors.js';
import type { PorticoConfig } from '../config.js';
import type { LoginLockout } from '../limits/lockout.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { AccountsService, Authorizer, AuthService } from '../types.js';
import { createAccountStore } from './account-store.js';
import { createAccountsService } from './accounts.js';
import { describeActor } from './describe.js';
import { noIdentityProviders, type IdentityProviders } from './identity-providers.js';
import { bootstrapLocalAdmin, recordAdminSignIn } from './local-admin.js';
import { ADMIN_USERNAME } from './local-account.js';
import { createLocalLogin } from './local-login.js';
import { generatePassword, hashPassword } from './passwords.js';
import { createSecretStore } from './secrets.js';
import { createSessionRevocations, type Revocation, type RevocationBus } from './revocations.js';
import { createStartSession } from './sessions.js';
import { loadSigningKey } from './signing-key.js';
import { createTickets } from './tickets.js';
import { createTokens, type ProjectTokenCheck } from './tokens.js';
import type { ProjectTokenGrant } from './project-token-jwt.js';

/** What the project tokens module (core/projects) needs of auth: signing and revoking (§14). */
export interface ProjectTokenAuth {
  issue(grant: ProjectTokenGrant): Promise<string>;
  /** Refused at once on every replica; its open sockets are closed. */
  revoke(id: string, expiresAt?: Date): Promise<void>;
}

export type Auth = AuthService & { accounts: AccountsService; projectTokens: ProjectTokenAuth };

export interface AuthDeps {
  config: PorticoConfig;
  cluster: Cluster;
  kv: KeyValue;
  authz: Authorizer;
  logger: Logger;
  /** Single sign-on; none by default (local sign-in only). */
  identityProviders?: IdentityProviders;
  /** Failed-login lockout (the limits module's); none when absent. */
  lockout?: LoginLockout;
  /** Milliseconds since the epoch; a fake clock in tests. */
  now?: () => number;
  /** How stale the in-memory copy of local accounts may get on other replicas (default 2 s). */
  accountsRefreshMs?: number;
  /** Shows a generated initial admin password to a person instead of logging it (see bootstrapLocalAdmin). */
  showGeneratedPassword?: (password: string) => void;
  /** Carries revocations to every replica (the event bus); without it they reach this process only. */
  bus?: RevocationBus;
  /** Whether a project token's record and role still exist (§14); without it, project tokens are refused. */
  projectTokenValid?: ProjectTokenCheck;
}

/** A bus within one process: what an embedding program without a shared store gets. */
function localBus(): RevocationBus {
  const listeners = new Set<Parameters<RevocationBus['onEvent']>[0]>();
  return {
    async publish(event) {
      for (const listener of [...listeners]) listener(event);
    },
    onEvent(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
  };
}

/**
 * The auth module: local accounts, tokens, revocation, WebSocket tickets, and the seam for OIDC. Resolves
 * once the admin password and the signing key exist in the cluster (created on the first start).
 */
export async function createAuth(deps: AuthDeps): Promise<Auth> {
  const { config, cluster, kv, authz, logger } = deps;
  const now = deps.now ?? Date.now;
  const log = logger.child({ module: 'auth' });
  const secrets = createSecretStore(cluster, config.kubernetes.namespace);

  const [key] = await Promise.all([
    loadSigningKey(secrets),
    bootstrapLocalAdmin({ secrets, adminPassword: config.adminPassword, logger: log, now, showGeneratedPassword: deps.showGeneratedPassword }),
  ]);

  const store = createAccountStore({ secrets, logger: log, now, refreshMs: deps.accountsRefreshMs });
  const tokens = createTokens({ key, issuer: config.issuer, ttlSeconds: config.tokenTtlSeconds, kv, accounts: store, now, projectTokenValid: deps.projectTokenValid });
  const tickets = createTickets({ kv, tokens, now });
  const revocations = createSessionRevocations({ bus: deps.bus ?? localBus(), accounts: store, logger: log });
  // The revocation itself is already stored when this runs: a bus that cannot take the notice must not turn a
  // done logout into an error. Sockets then still close at their next heartbeat check or on expiry.
  const announce = (revocation: Revocation) =>
    revocations.announce(revocation).catch((err: unknown) => log.warn({ err }, 'could not tell the other replicas about a revocation'));
  const describe = (actor: Actor) => describeActor(authz, actor);
  const startSession = createStartSession(tokens, describe);
  const idp = deps.identityProviders ?? noIdentityProviders();
  const dummyHash = hashPassword(generatePassword());
  const signIn = createLocalLogin({ accounts: store, startSession, dummyHash, logger: log, lockout: deps.lockout });
  await dummyHash;
  // The admin's first sign-in ends the showing of the initial password at start (once per process is enough).
  let adminSignedIn = false;
  const localLogin: AuthService['localLogin'] = async (input, ctx) => {
    const session = await signIn(input, ctx);
    if (session.user.id === ADMIN_USERNAME && !adminSignedIn) {
      adminSignedIn = true;
      recordAdminSignIn(secrets, now).catch((err: unknown) => log.warn({ err }, 'could not record the admin\'s first sign-in'));
    }
    return session;
  };

  return {
    localLogin,
    verifyToken: (token) => tokens.verify(token),
    async logout(actor) {
      // Signing out would end a pipeline's token for good, behind the back of those who manage it.
      if (actor.projectToken) {
        const { project, role } = actor.projectToken;
        throw badRequest(`a project token is not a session: revoke it with DELETE /api/v1/projects/${project}/roles/${role}/tokens/${actor.tokenId}`);
      }
      await tokens.revoke(actor);
      if (actor.tokenId) await announce({ tokenId: actor.tokenId });
      return { message: 'logged out' };
    },
    issueTicket: (actor) => tickets.issue(actor),
    redeemTicket: (ticket) => tickets.redeem(ticket),
    async tokenExchange(input, ctx) {
      return startSession(await idp.exchange(input, ctx));
    },
    ssoProviders: () => idp.options(),
    ssoProviderList: () => idp.providerList(),
    oidcLogin: (query, ctx) => idp.login(query, ctx),
    oidcCallback: (query, ctx) => idp.callback(query, ctx),
    describe,
    onSessionsRevoked: (listener) => revocations.onRevoked(listener),
    async sessionValid(actor) {
      try {
        await tokens.ensureStillValid(actor);
        return true;
      } catch (e) {
        if (isPorticoError(e) && e.code === 'UNAUTHORIZED') return false;
        throw e;
      }
    },
    accounts: createAccountsService({ store, authz, announce }),
    projectTokens: {
      issue: (grant) => tokens.issueProjectToken(grant),
      async revoke(id, expiresAt) {
        await tokens.revokeProjectToken(id, expiresAt);
        await announce({ tokenId: id });
      },
    },
  };
}
