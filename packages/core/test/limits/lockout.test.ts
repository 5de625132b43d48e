import { describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createAuth } from '../../src/auth/index.js';
import { loadConfig } from '../../src/config.js';
import { PorticoError } from '../../src/errors.js';
import { createLimits, LOCKED_OUT } from '../../src/limits/index.js';
import { captureLogger, fakeAuthorizer, fakeClock, fakeCluster } from '../auth/fakes.js';

const PASSWORD = 'correct horse battery staple';
const attacker = { ip: '198.51.100.66', requestId: 'r' };
const owner = { ip: '203.0.113.10', requestId: 'r' };

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (!(e instanceof PorticoError)) throw e;
    return e.code;
  }
}

/** Local sign-in with the limits module's lockout, over a memory store and a clock the test moves. */
async function world(rateLimits?: string) {
  const now = fakeClock();
  const kv = createMemoryKeyValue({ now });
  const env: Record<string, string> = { PORTICO_PROFILE: 'development', PORTICO_NAMESPACE: 'portico-test', ADMIN_PASSWORD: PASSWORD };
  if (rateLimits) env.PORTICO_RATE_LIMITS = rateLimits;
  const config = loadConfig(env);
  const { logger, lines } = captureLogger();
  const limits = createLimits({ kv, config, now, logger });
  const auth = await createAuth({ config, cluster: fakeCluster(), kv, authz: fakeAuthorizer(), logger, now, lockout: limits.lockout });
  const login = (username: string, password: string, ctx = attacker) => outcome(auth.localLogin({ username, password }, ctx));
  return { now, kv, auth, login, lines };
}

describe('failed-login lockout in local sign-in', () => {
  it('locks an IP out after 10 failures: 429 for the rest of the 15 minutes, the right password included', async () => {
    const w = await world();
    for (let i = 0; i < 10; i++) expect(await w.login(`guess-${i}`, 'wrong-password')).toBe('UNAUTHORIZED');
    expect(await w.login('admin', PASSWORD)).toBe('RATE_LIMIT_EXCEEDED');

    let refused: PorticoError | undefined;
    await w.auth.localLogin({ username: 'someone', password: 'x' }, attacker).catch((e: PorticoError) => (refused = e));
    expect(refused).toMatchObject({ status: 429, message: LOCKED_OUT, details: {} });
    expect(refused!.retryAfter).toBeGreaterThan(14 * 60);
    expect(refused!.retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(w.lines.some((l) => l.msg === 'sign-in locked out after repeated failures' && l.ip === attacker.ip)).toBe(true);

    // Another client, another username: unaffected.
    expect(await w.login('admin', PASSWORD, owner)).toBe('ok');
    w.now.advance(15 * 60 * 1000);
    expect(await w.login('admin', PASSWORD)).toBe('ok');
  });

  it('locks a username out when the failures come from many addresses', async () => {
    const w = await world();
    for (let i = 0; i < 10; i++) {
      expect(await w.login('admin', `wrong-${i}`, { ip: `198.51.100.${i + 1}`, requestId: 'r' })).toBe('UNAUTHORIZED');
    }
    expect(await w.login('admin', PASSWORD, owner)).toBe('RATE_LIMIT_EXCEEDED');
    expect(await w.login('ADMIN ', PASSWORD, owner)).toBe('RATE_LIMIT_EXCEEDED');
    w.now.advance(15 * 60 * 1000);
    expect(await w.login('admin', PASSWORD, owner)).toBe('ok');
  });

  it('forgets a username\'s failures after a successful sign-in, but not the IP\'s', async () => {
    const w = await world();
    for (let i = 0; i < 9; i++) await w.login('admin', 'typo-password');
    expect(await w.login('admin', PASSWORD)).toBe('ok');
    // The username starts again from zero (9 more failures from elsewhere do not lock it) …
    for (let i = 0; i < 9; i++) await w.login('admin', 'typo-password', owner);
    expect(await w.login('admin', PASSWORD, owner)).toBe('ok');
    // … but the attacker's IP still carries its 9 failures: one more and it is locked.
    expect(await w.login('nobody', 'guess')).toBe('UNAUTHORIZED');
    expect(await w.login('admin', PASSWORD)).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('follows PORTICO_RATE_LIMITS (loginFailures), and 0 turns the lockout off', async () => {
    const strict = await world('{"loginFailures":{"limit":2,"windowSeconds":60}}');
    await strict.login('admin', 'a-wrong-one');
    await strict.login('admin', 'a-wrong-two');
    expect(await strict.login('admin', PASSWORD, owner)).toBe('RATE_LIMIT_EXCEEDED');
    strict.now.advance(60_000);
    expect(await strict.login('admin', PASSWORD, owner)).toBe('ok');

    const off = await world('0');
    for (let i = 0; i < 30; i++) await off.login('admin', 'wrong-password');
    expect(await off.login('admin', PASSWORD)).toBe('ok');
  });

  it('fails closed: with the store down a sign-in answers 503, never a session', async () => {
    const w = await world();
    Object.assign(w.kv, {
      get: () => Promise.reject(new Error('connection refused')),
      incrWindow: () => Promise.reject(new Error('connection refused')),
    });
    expect(await w.login('admin', PASSWORD)).toBe('SERVICE_UNAVAILABLE');
  });
});
