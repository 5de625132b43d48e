import type { Actor } from '../actor.js';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { DomainEvent } from '../types.js';
import type { AccountStore } from './account-store.js';
import type { LocalAccount } from './local-account.js';

/** What was revoked: one token (logout), or every earlier token of a local account (password change, deletion). */
export type Revocation = { tokenId: string } | { account: string };

/** Tells whether an open session (a socket's actor) was cut off by a revocation. */
type IsRevoked = (actor: Actor) => boolean;

/** The bus a revocation travels on to every replica (the event bus; structural so tests can use a fake). */
export interface RevocationBus {
  publish(event: DomainEvent): Promise<void>;
  onEvent(listener: (event: DomainEvent) => void): Disposable;
}

const SESSION_REVOKED = 'session_revoked';

/** Each stored account's cut-off as epoch ms, parsed once: the check runs on every request of a local user. */
const cutOffs = new WeakMap<LocalAccount, number>();
const cutOffOf = (account: LocalAccount & { tokensValidAfter: string }) => {
  let ms = cutOffs.get(account);
  if (ms === undefined) cutOffs.set(account, (ms = Date.parse(account.tokensValidAfter)));
  return ms;
};

/** Whether a local account, as stored now, still accepts a token issued to `actor` (the rules of tokens.ts). */
export function accountAccepts(account: LocalAccount | undefined, actor: Pick<Actor, 'issuedAt' | 'generation'>): boolean {
  if (!account) return false;
  // A namesake created after a deletion has a new generation, even within the same second.
  if (account.generation !== actor.generation) return false;
  return !account.tokensValidAfter || actor.issuedAt.getTime() >= cutOffOf(account as LocalAccount & { tokensValidAfter: string });
}

interface SessionRevocations {
  /** Tells every replica; resolves once the notice is on the bus. */
  announce(revocation: Revocation): Promise<void>;
  /** Called on every replica (this one included) with a test for the sessions the revocation cut off. */
  onRevoked(listener: (isRevoked: IsRevoked) => void): Disposable;
}

const isRevocation = (data: unknown): data is Revocation =>
  !!data &&
  typeof data === 'object' &&
  (typeof (data as { tokenId?: unknown }).tokenId === 'string' || typeof (data as { account?: unknown }).account === 'string');

/**
 * Revocation reaching long-lived sessions. Requests check their token on every call, but an open WebSocket was
 * authenticated once; this carries each revocation to every replica so its sockets of the revoked session can
 * be closed at once. An account notice re-reads the account from the cluster first, so a replica whose copy of
 * the accounts is a moment old still decides on the new state.
 */
export function createSessionRevocations(deps: { bus: RevocationBus; accounts: Pick<AccountStore, 'fresh'>; logger: Logger }): SessionRevocations {
  const { bus, accounts, logger } = deps;
  const listeners = new Set<(isRevoked: IsRevoked) => void>();

  const notify = (isRevoked: IsRevoked) => {
    for (const listener of [...listeners]) {
      try {
        listener(isRevoked);
      } catch (err) {
        logger.error({ err }, 'a revocation listener failed');
      }
    }
  };

  const received = async (revocation: Revocation) => {
    if ('tokenId' in revocation) return notify((actor) => actor.tokenId === revocation.tokenId);
    const username = revocation.account;
    const account = await accounts.fresh(username);
    notify((actor) => actor.local && actor.id === username && !accountAccepts(account, actor));
  };

  bus.onEvent((event) => {
    if ((event.type as string) !== SESSION_REVOKED || !isRevocation(event.data)) return;
    received(event.data).catch((err: unknown) => logger.error({ err }, 'could not apply a session revocation'));
  });

  return {
    announce: (revocation) => bus.publish({ type: SESSION_REVOKED, data: revocation } as DomainEvent),
    onRevoked(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
  };
}
