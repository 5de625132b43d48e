import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { ACCOUNTS_SECRET, createAccountStore } from '../../src/auth/account-store.js';
import type { SecretData, SecretStore } from '../../src/auth/secrets.js';

/**
 * Two replicas share the accounts secret. Replica B's copy is re-read while replica A writes: a read that was
 * already under way when B was asked may hold the state from before A's write, and must not decide for it.
 */
function sharedSecrets() {
  const data: Record<string, SecretData> = {};
  let hold: Promise<void> | undefined;
  const store: SecretStore = {
    async read(name) {
      const snapshot = data[name] ? { ...data[name] } : undefined;
      if (hold) await hold;
      return snapshot;
    },
    async update(name, change) {
      const next = { ...(data[name] ?? {}) };
      for (const [k, v] of Object.entries(change(data[name]))) {
        if (v === null) delete next[k];
        else next[k] = Buffer.isBuffer(v) ? v : Buffer.from(v);
      }
      data[name] = next;
      return { data: next } as never;
    },
  };
  return {
    store,
    /** Reads begun until `release()` see the data as it was when they began, and answer only then. */
    holdReads() {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

const account = (generation: string) => Buffer.from(JSON.stringify({ hash: 'h', groups: [], createdAt: new Date(0).toISOString(), generation }));

describe('the account copy of a replica', () => {
  const logger = createLogger('silent');

  it('an account created on another replica while a re-read was under way is found by fresh() and recent()', async () => {
    const { store, holdReads } = sharedSecrets();
    const b = createAccountStore({ secrets: store, logger, now: Date.now, refreshMs: 60_000 });
    const release = holdReads();
    const stale = b.list(); // a re-read of B's copy begins before the account exists
    await store.update(ACCOUNTS_SECRET, () => ({ carol: account('g1') })); // replica A creates it
    const fresh = b.fresh('carol');
    const recent = b.recent('carol', Date.now());
    release();
    await stale;
    await expect(fresh).resolves.toMatchObject({ username: 'carol', generation: 'g1' });
    await expect(recent).resolves.toMatchObject({ username: 'carol' });
  });

  it('recent() does not re-read for a moment the copy already covers', async () => {
    const { store } = sharedSecrets();
    let reads = 0;
    const counting: SecretStore = { ...store, read: (name) => (reads++, store.read(name)) };
    const b = createAccountStore({ secrets: counting, logger, now: Date.now, refreshMs: 60_000 });
    const before = Date.now() - 1;
    await b.list();
    const afterFirst = reads;
    await expect(b.recent('nobody', before)).resolves.toBeUndefined();
    expect(reads).toBe(afterFirst);
    // A moment after the copy's read began: it is read again.
    await expect(b.recent('nobody', Date.now() + 1)).resolves.toBeUndefined();
    expect(reads).toBeGreaterThan(afterFirst);
  });

  it('concurrent callers share one read begun after they asked', async () => {
    const { store } = sharedSecrets();
    let reads = 0;
    const counting: SecretStore = { ...store, read: (name) => (reads++, store.read(name)) };
    const b = createAccountStore({ secrets: counting, logger, now: Date.now, refreshMs: 60_000 });
    await Promise.all(Array.from({ length: 20 }, () => b.fresh('nobody')));
    // The first caller's read, and one more for all who asked while it ran: two reads of two secrets (the
    // admin's and the accounts'), not twenty.
    expect(reads).toBe(4);
  });
});
