import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import { ADMIN_SECRET, INITIAL_ADMIN_SECRET, adminFromSecret, adminPasswordChanges } from './local-admin.js';
import { ADMIN_USERNAME, cutOffAfter, type LocalAccount } from './local-account.js';
import type { SecretChanges, SecretData, SecretStore } from './secrets.js';

/** The Secret holding every local account but the admin: one key per username, JSON `{hash, groups, createdAt, generation, tokensValidAfter?}`. */
export const ACCOUNTS_SECRET = 'portico-accounts';

/**
 * Local accounts (admin included) over their two secrets, with an in-memory copy so token verification does
 * not read the cluster on every request. The copy is re-read when older than `refreshMs`; writes made
 * through this store replace it at once, so a deletion or password change here applies to the next request.
 */
export interface AccountStore {
  /** From the in-memory copy (at most `refreshMs` stale): the token-verification path. */
  cached(username: string): Promise<LocalAccount | undefined>;
  /** Re-read from the cluster first, by a read begun after the call: sign-in, account changes, revocations. */
  fresh(username: string): Promise<LocalAccount | undefined>;
  /**
   * From a copy whose read began after `since` (epoch ms), re-reading if the copy is older: a token the cached
   * copy refuses (its account just created, or re-created, on another replica before `since`) is checked
   * against the cluster state that holds it. Concurrent callers share one read.
   */
  recent(username: string, since: number): Promise<LocalAccount | undefined>;
  /** Fresh, admin first, then by username. */
  list(): Promise<LocalAccount[]>;
  /** CONFLICT if the username exists (the admin's included). */
  create(input: { username: string; hash: string; groups: string[] }): Promise<LocalAccount>;
  /** NOT_FOUND if absent; the admin cannot be removed (BAD_REQUEST). */
  remove(username: string): Promise<void>;
  /** Replaces the hash if it is still `currentHash` (CONFLICT otherwise) and cuts off earlier tokens. */
  setPassword(username: string, currentHash: string, newHash: string): Promise<LocalAccount>;
}

interface StoredAccount {
  hash: string;
  groups: string[];
  createdAt: string;
  generation?: string;
  tokensValidAfter?: string;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function parseAccount(username: string, raw: Buffer | undefined): LocalAccount | undefined {
  if (!raw?.length) return undefined;
  try {
    const v = JSON.parse(raw.toString('utf8')) as Partial<StoredAccount>;
    if (typeof v.hash !== 'string' || !v.hash) return undefined;
    return {
      username,
      hash: v.hash,
      groups: isStringArray(v.groups) ? v.groups : [],
      createdAt: typeof v.createdAt === 'string' ? v.createdAt : new Date(0).toISOString(),
      tokensValidAfter: typeof v.tokensValidAfter === 'string' ? v.tokensValidAfter : undefined,
      generation: typeof v.generation === 'string' ? v.generation : undefined,
      builtIn: false,
    };
  } catch {
    return undefined; // a hand-edited, unreadable entry is treated as no account: nobody signs in with it
  }
}

const serialize = (a: LocalAccount): string => {
  const stored: StoredAccount = { hash: a.hash, groups: a.groups, createdAt: a.createdAt };
  if (a.generation) stored.generation = a.generation;
  if (a.tokensValidAfter) stored.tokensValidAfter = a.tokensValidAfter;
  return JSON.stringify(stored);
};

const accountsFromSecret = (data: SecretData | undefined): Map<string, LocalAccount> => {
  const accounts = new Map<string, LocalAccount>();
  for (const [username, raw] of Object.entries(data ?? {})) {
    const account = parseAccount(username, raw);
    // The admin lives in its own secret; an `admin` key here must not shadow or duplicate it.
    if (account && username !== ADMIN_USERNAME) accounts.set(username, account);
  }
  return accounts;
};

interface AccountStoreOptions {
  secrets: SecretStore;
  logger: Logger;
  now: () => number;
  /** How stale the in-memory copy may get. */
  refreshMs?: number;
  /** While the cluster cannot be read, the copy is still used up to this age; after that, verification fails. */
  maxStaleMs?: number;
}

export function createAccountStore(options: AccountStoreOptions): AccountStore {
  const { secrets, logger, now, refreshMs = 2_000, maxStaleMs = 30_000 } = options;
  let admin: LocalAccount | undefined;
  let accounts = new Map<string, LocalAccount>();
  // When the read behind the copy began: the copy holds every write made elsewhere before that moment.
  let loadedAt = Number.NEGATIVE_INFINITY;
  // Counts writes through this store: a re-read that overlapped a write may hold older data and is dropped.
  let writes = 0;
  // Reads are numbered as they begin, so a caller can tell a read that began after it asked from one that was
  // already under way (and may have missed a write made on another replica a moment before).
  let readsBegun = 0;
  let lastRead = 0;
  let inflight: { n: number; done: Promise<void> } | undefined;

  const load = async (n: number) => {
    const started = writes;
    const startedAt = now();
    const [adminData, accountsData] = await Promise.all([secrets.read(ADMIN_SECRET), secrets.read(ACCOUNTS_SECRET)]);
    if (writes !== started) return;
    admin = adminFromSecret(adminData);
    accounts = accountsFromSecret(accountsData);
    loadedAt = startedAt;
    lastRead = n;
  };

  const beginRead = (): Promise<void> => {
    const n = ++readsBegun;
    const done = load(n).finally(() => {
      if (inflight?.n === n) inflight = undefined;
    });
    inflight = { n, done };
    return done;
  };

  /** Any read: the one under way, or a new one. */
  const reload = (): Promise<void> => inflight?.done ?? beginRead();

  /** A read that began after this call; one begun meanwhile by another caller is shared. */
  const readBegunNow = async (): Promise<void> => {
    const asked = readsBegun;
    while (inflight && inflight.n <= asked) await inflight.done.catch(() => undefined);
    if (lastRead > asked) return;
    return inflight ? inflight.done : beginRead();
  };

  const wrote = () => {
    writes++;
  };

  const lookup = (username: string) => (username === ADMIN_USERNAME ? admin : accounts.get(username));

  return {
    async cached(username) {
      if (now() - loadedAt > refreshMs) {
        try {
          await reload();
        } catch (e) {
          if (now() - loadedAt > maxStaleMs) throw e;
          logger.warn({ err: e }, 'local accounts could not be re-read; using the copy in memory');
        }
      }
      return lookup(username);
    },

    async fresh(username) {
      await readBegunNow();
      return lookup(username);
    },

    async recent(username, since) {
      if (loadedAt <= since) {
        // Only a second opinion: when the cluster cannot answer, the copy's answer stands.
        await readBegunNow().catch((e: unknown) => logger.warn({ err: e }, 'local accounts could not be re-read'));
      }
      return lookup(username);
    },

    async list() {
      await reload();
      const others = [...accounts.values()].sort((a, b) => a.username.localeCompare(b.username));
      return admin ? [admin, ...others] : others;
    },

    async create({ username, hash, groups }) {
      const exists = () => conflict(`account "${username}" already exists`, { username });
      if (username === ADMIN_USERNAME) throw exists();
      const t = now();
      // The cut-off refuses any token left over from an earlier account of the same name.
      const account: LocalAccount = { username, hash, groups, createdAt: new Date(t).toISOString(), tokensValidAfter: cutOffAfter(t), generation: randomUUID(), builtIn: false };
      const { data } = await secrets.update(ACCOUNTS_SECRET, (current) => {
        if (parseAccount(username, current?.[username])) throw exists();
        return { [username]: serialize(account) };
      });
      accounts = accountsFromSecret(data);
      wrote();
      return account;
    },

    async remove(username) {
      if (username === ADMIN_USERNAME) throw badRequest('the built-in admin account cannot be deleted');
      const { data } = await secrets.update(ACCOUNTS_SECRET, (current) => {
        if (!current?.[username]) throw notFound('account', username);
        return { [username]: null };
      });
      accounts = accountsFromSecret(data);
      wrote();
    },

    async setPassword(username, currentHash, newHash) {
      const changedMeanwhile = () => conflict('the password was changed concurrently, retry');
      if (username === ADMIN_USERNAME) {
        const { data } = await secrets.update(ADMIN_SECRET, (current) => {
          const stored = adminFromSecret(current);
          if (stored?.hash !== currentHash) throw changedMeanwhile();
          return adminPasswordChanges(newHash, cutOffAfter(now(), stored.tokensValidAfter));
        });
        admin = adminFromSecret(data);
        wrote();
        // The generated initial password is no longer valid: do not leave it readable.
        await secrets.update(INITIAL_ADMIN_SECRET, (current): SecretChanges => (current?.password ? { password: null } : {}));
        return admin!;
      }
      const { data } = await secrets.update(ACCOUNTS_SECRET, (current) => {
        const account = parseAccount(username, current?.[username]);
        if (!account) throw notFound('account', username);
        if (account.hash !== currentHash) throw changedMeanwhile();
        return { [username]: serialize({ ...account, hash: newHash, tokensValidAfter: cutOffAfter(now(), account.tokensValidAfter) }) };
      });
      accounts = accountsFromSecret(data);
      wrote();
      return accounts.get(username)!;
    },
  };
}
