import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startTestPortico, type TestPortico } from './support/portico.js';

// A connection's last bearer token is read once and kept with the connection; every request still answers for
// the header it carries, whatever the requests before it on that connection carried.

describe('bearer tokens on one keep-alive connection', () => {
  let t: TestPortico;
  let memberToken: string;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    t = await startTestPortico();
    const password = `pw-${randomUUID()}`;
    const created = await fetch(`${t.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      body: JSON.stringify({ username: 'mona', password, groups: [] }),
    });
    expect(created.status).toBe(201);
    memberToken = await login(t.url, 'mona', password);
  });
  afterAll(async () => {
    agent.destroy();
    await t?.close();
  });

  /** GET /api/v1/account on the agent's one socket: status, who, and whether the socket was one used before. */
  const whoAmI = (authorization: string | undefined) =>
    new Promise<{ status: number; user?: string; reused: boolean }>((resolve, reject) => {
      const req = http.get(`${t.url}/api/v1/account`, { agent, headers: authorization === undefined ? {} : { authorization } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, user: res.statusCode === 200 ? JSON.parse(text).userID : undefined, reused: req.reusedSocket }));
      });
      req.on('error', reject);
    });

  it('answers each request for the token it carries, switching back and forth on the same socket', async () => {
    const answers = [];
    for (const authorization of [
      `Bearer ${t.adminToken}`,
      `Bearer ${memberToken}`,
      `bearer ${memberToken}  `,
      `Bearer ${t.adminToken}x`,
      `Basic ${Buffer.from('admin:x').toString('base64')}`,
      undefined,
      `Bearer ${t.adminToken}`,
    ]) {
      answers.push(await whoAmI(authorization));
    }
    expect(answers.map((a) => `${a.status} ${a.user ?? ''}`.trim())).toEqual(['200 admin', '200 mona', '200 mona', '401', '401', '401', '200 admin']);
    expect(answers.slice(1).every((a) => a.reused)).toBe(true);
  });

  it('refuses a token signed out on this connection at once, though the connection read it before', async () => {
    const password = `pw-${randomUUID()}`;
    await fetch(`${t.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      body: JSON.stringify({ username: 'otto', password, groups: [] }),
    });
    const token = await login(t.url, 'otto', password);
    expect(await whoAmI(`Bearer ${token}`)).toMatchObject({ status: 200, user: 'otto' });
    const out = await fetch(`${t.url}/api/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(out.status).toBeLessThan(300);
    expect(await whoAmI(`Bearer ${token}`)).toMatchObject({ status: 401, reused: true });
  });
});
