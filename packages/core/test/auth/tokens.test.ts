import { randomBytes } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { INVALID_TOKEN, SIGNING_KEY_SECRET } from '../../src/auth/index.js';
import { fakeAuthorizer, fakeClock, fakeCluster, fakeKeyValue } from './fakes.js';
import { ctx, rejection, startReplica, startWorld } from './setup.js';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function expectRefused(p: Promise<unknown>) {
  const e = await rejection(p);
  expect(e.code).toBe('UNAUTHORIZED');
  expect(e.message).toBe(INVALID_TOKEN);
}

describe('local login', () => {
  it('returns a one-hour token and the user described from current policy', async () => {
    const authz = fakeAuthorizer({ roles: { 'user:admin': { beta: ['viewer'], alpha: ['platform-admin', 'developer'] } } });
    const w = await startWorld({ authz });
    const res = await w.adminLogin();

    expect(res.user).toEqual({
      id: 'admin',
      email: 'admin@local',
      displayName: 'admin',
      groups: [],
      projects: ['alpha', 'beta'],
      roles: { alpha: 'platform-admin', beta: 'viewer' },
      casbinRoles: ['role:serveradmin'],
    });
    const claims = decodeJwt(res.token);
    expect(claims).toMatchObject({ sub: 'admin', email: 'admin@local', iss: 'portico', aud: 'portico', local: true, name: 'admin', groups: [] });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe('string');
    expect(claims).not.toHaveProperty('roles');
    expect(Date.parse(res.expiresAt)).toBe(claims.exp! * 1000);

    const actor = await w.auth.verifyToken(res.token);
    expect(actor).toMatchObject({ id: 'admin', subject: 'user:admin', tokenId: claims.jti, issuer: 'portico', local: true });
    expect(actor.expiresAt.toISOString()).toBe(res.expiresAt);
  });

  it('hands every request of a token the same actor, which no request can change for the next', async () => {
    const w = await startWorld();
    const { token } = await w.adminLogin();
    const first = await w.auth.verifyToken(token);
    expect(() => (first.groups as string[]).push('role:serveradmin')).toThrow(TypeError);
    expect(() => Object.assign(first, { id: 'someone-else' })).toThrow(TypeError);
    const again = await w.auth.verifyToken(token);
    expect(again).toBe(first);
    expect(again).toMatchObject({ id: 'admin', groups: [] });
  });

  it('gives the same 401 for a wrong user and a wrong password', async () => {
    const w = await startWorld();
    const wrongUser = await rejection(w.auth.localLogin({ username: 'nobody', password: w.adminPassword }, ctx));
    const wrongPassword = await rejection(w.auth.localLogin({ username: 'admin', password: 'not-the-password' }, ctx));
    expect(wrongUser).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'invalid username or password' });
    expect(wrongPassword).toMatchObject({ code: wrongUser.code, status: wrongUser.status, message: wrongUser.message });
  });

  it('uses the configured token lifetime and issuer', async () => {
    const now = fakeClock();
    const { auth } = await startReplica({
      cluster: fakeCluster(),
      kv: fakeKeyValue(now),
      now,
      env: { ADMIN_PASSWORD: 'pw-pw-pw-pw', PORTICO_TOKEN_TTL_SECONDS: '600', PORTICO_ISSUER: 'https://portico.example' },
    });
    const claims = decodeJwt((await auth.localLogin({ username: 'admin', password: 'pw-pw-pw-pw' }, ctx)).token);
    expect(claims.iss).toBe('https://portico.example');
    expect(claims.exp! - claims.iat!).toBe(600);
  });
});

describe('token verification refuses', () => {
  const signingKey = (w: Awaited<ReturnType<typeof startWorld>>) => {
    const secret = [...w.cluster.objects.values()].find((o) => o.metadata.name === SIGNING_KEY_SECRET)!;
    return new Uint8Array(Buffer.from(secret.data!.hs256, 'base64'));
  };
  const craft = (w: Awaited<ReturnType<typeof startWorld>>, claims: Record<string, unknown>, key = signingKey(w), issuedInSeconds = 0) => {
    const iat = Math.floor(w.now() / 1000) + issuedInSeconds;
    return new SignJWT({ name: 'admin', groups: [], local: true, ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('admin')
      .setJti('crafted-1')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .setIssuer((claims.iss as string) ?? 'portico')
      .setAudience((claims.aud as string) ?? 'portico')
      .sign(key);
  };

  it('a correctly crafted token passes (the control for the cases below)', async () => {
    const w = await startWorld();
    await expect(w.auth.verifyToken(await craft(w, {}))).resolves.toMatchObject({ id: 'admin' });
  });

  it('a tampered token', async () => {
    const w = await startWorld();
    const [header, , signature] = (await w.adminLogin()).token.split('.');
    const payload = b64url({ ...decodeJwt((await w.adminLogin()).token), sub: 'someone-else' });
    await expectRefused(w.auth.verifyToken(`${header}.${payload}.${signature}`));
    const token = (await w.adminLogin()).token;
    const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1);
    await expectRefused(w.auth.verifyToken(flipped));
  });

  it('an unsigned token (alg none)', async () => {
    const w = await startWorld();
    const claims = decodeJwt((await w.adminLogin()).token);
    await expectRefused(w.auth.verifyToken(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`));
    await expectRefused(w.auth.verifyToken(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}`));
  });

  it('a token signed with another HS256 key', async () => {
    const w = await startWorld();
    await expectRefused(w.auth.verifyToken(await craft(w, {}, new Uint8Array(randomBytes(64)))));
  });

  it('a token from another issuer or for another audience', async () => {
    const w = await startWorld();
    await expectRefused(w.auth.verifyToken(await craft(w, { iss: 'https://evil.example' })));
    await expectRefused(w.auth.verifyToken(await craft(w, { aud: 'another-app' })));
  });

  it('an expired token (after the 30 s tolerance)', async () => {
    const w = await startWorld();
    const { token } = await w.adminLogin();
    w.now.advance(3600_000 + 10_000);
    await expect(w.auth.verifyToken(token)).resolves.toBeDefined(); // within tolerance
    w.now.advance(25_000);
    await expectRefused(w.auth.verifyToken(token));
  });

  it('a token issued in the future (beyond the 30 s clock-skew tolerance)', async () => {
    const w = await startWorld();
    await expectRefused(w.auth.verifyToken(await craft(w, {}, signingKey(w), 120)));
    await expectRefused(w.auth.verifyToken(await craft(w, { jti: 'crafted-2' }, signingKey(w), 31)));
    // A replica whose clock runs a little behind the issuer's still accepts its tokens.
    await expect(w.auth.verifyToken(await craft(w, {}, signingKey(w), 20))).resolves.toMatchObject({ id: 'admin' });
  });

  it('a revoked token after logout, while other tokens keep working', async () => {
    const w = await startWorld();
    const first = await w.adminLogin();
    const second = await w.adminLogin();
    const actor = await w.auth.verifyToken(first.token);
    await expect(w.auth.logout(actor)).resolves.toEqual({ message: 'logged out' });
    await expectRefused(w.auth.verifyToken(first.token));
    await expect(w.auth.verifyToken(second.token)).resolves.toBeDefined();
    // The revocation marker outlives the token's own validity (tolerance included), not forever.
    const [marker] = w.kv.keys().filter((k) => k.startsWith('revoked:'));
    expect(marker).toBe(`revoked:${actor.tokenId}`);
    w.now.advance(3600_000 + 31_000);
    expect(w.kv.keys().filter((k) => k.startsWith('revoked:'))).toEqual([]);
  });

  it('garbage', async () => {
    const w = await startWorld();
    for (const t of ['', 'abc', 'a.b.c', 'x'.repeat(10_000)]) await expectRefused(w.auth.verifyToken(t));
  });
});

describe('key-value outage', () => {
  it('a token is not accepted unchecked when revocation cannot be read', async () => {
    const w = await startWorld();
    const { token } = await w.adminLogin();
    const actor = await w.auth.verifyToken(token);
    w.kv.down = true;
    expect((await rejection(w.auth.verifyToken(token))).code).toBe('SERVICE_UNAVAILABLE');
    // A logout that cannot be recorded says so instead of pretending the token is revoked.
    expect((await rejection(w.auth.logout(actor))).code).toBe('SERVICE_UNAVAILABLE');
    w.kv.down = false;
    await expect(w.auth.verifyToken(token)).resolves.toBeDefined();
  });
});
