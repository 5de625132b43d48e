import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiAs } from '../support/api-as.js';
import { boxedPassword, listeningUrl, logLines, runBin, stop, waitFor, type BinProcess } from '../support/bin.js';
import { sampleCatalog } from '../support/portico.js';

/**
 * Issue 2, acceptance 5, against the built bin in the development profile: state lives in PORTICO_DATA_DIR
 * (the embedded cluster's secret store and resources), so a restart keeps projects, the admin password and the
 * token signing key.
 */
const started: BinProcess[] = [];
const dataDirs: string[] = [];

async function freshDataDir() {
  const dir = await mkdtemp(join(tmpdir(), 'portico-restart-'));
  dataDirs.push(dir);
  return dir;
}

const environment = (dataDir: string, extra: Record<string, string> = {}) => ({
  PORTICO_PROFILE: 'development',
  SERVER_ADDRESS: '127.0.0.1:0',
  PORTICO_DATA_DIR: dataDir,
  PORTICO_MANIFESTS: sampleCatalog,
  LOG_LEVEL: 'info',
  ...extra,
});

function start(dataDir: string, extra: Record<string, string> = {}, args: string[] = [], stdin?: string) {
  const p = runBin(environment(dataDir, extra), args, stdin);
  started.push(p);
  return p;
}

async function login(url: string, username: string, password: string) {
  const res = await fetch(`${url}/api/v1/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, token: res.status === 200 ? ((await res.json()) as { token: string }).token : undefined };
}

const everything = (p: BinProcess) => `${p.out()}\n${p.err()}`;
const linesContaining = (p: BinProcess, text: string) => everything(p).split('\n').filter((l) => l.includes(text));

afterEach(async () => {
  for (const p of started.splice(0)) p.child.kill('SIGKILL');
  for (const dir of dataDirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('issue 2 / acceptance 5: restarting keeps what was changed', () => {
  it('a generated admin password, projects and tokens survive restarts; a changed password too', async () => {
    const dataDir = await freshDataDir();

    // First start: the password is generated and shown once, framed, with the lines to paste; no log line has it.
    const first = start(dataDir);
    const url1 = await listeningUrl(first);
    const password = await waitFor(() => boxedPassword(first), 'the password box');
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(first.out().match(/Portico admin password/g)).toHaveLength(1);
    const [alone, exported, signIn] = linesContaining(first, password);
    expect(alone).toMatch(new RegExp(`^│ +${password} +│$`));
    expect(exported).toContain(`export PORTICO_PASSWORD='${password}'`);
    expect(signIn).toBeUndefined(); // the login line reads the variable, it does not repeat the password
    expect(first.out()).toContain(`printenv PORTICO_PASSWORD | npx portico login ${url1} --username admin --password-stdin`);
    expect(logLines(first).filter((l) => JSON.stringify(l).includes(password))).toEqual([]);

    const { token } = await login(url1, 'admin', password);
    expect(token).toBeDefined();
    const admin1 = apiAs(url1, token!);
    const project = `restart-${randomUUID().slice(0, 8)}`;
    expect((await admin1.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    expect(await stop(first)).toBe(0);
    expect(linesContaining(first, password)).toHaveLength(2);

    // Second start on the same data dir: no new password, the old token and the password still work.
    const second = start(dataDir);
    const url2 = await listeningUrl(second);
    expect(logLines(second).filter((l) => 'password' in l)).toEqual([]);
    expect(everything(second)).not.toContain(password);
    const admin2 = apiAs(url2, token!);
    const kept = await admin2.get(`/api/v1/projects/${project}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ name: project, destinations: [{ namespace: 'dev' }], createdBy: 'admin' });
    expect((await admin2.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toContain(project);
    expect((await login(url2, 'admin', password)).status).toBe(200);

    // Change the admin password and create another project; both must survive the next restart.
    const newPassword = `changed-${randomUUID()}`;
    expect((await admin2.put('/api/v1/account/password', { currentPassword: password, newPassword })).status).toBe(200);
    const { token: newToken } = await login(url2, 'admin', newPassword);
    expect(newToken).toBeDefined();
    const later = `later-${randomUUID().slice(0, 8)}`;
    expect((await apiAs(url2, newToken!).post('/api/v1/projects', { name: later, destinations: [] })).status).toBe(201);
    expect(await stop(second)).toBe(0);

    // Third start: the changed password is the one that works, tokens from before the change stay refused.
    const third = start(dataDir);
    const url3 = await listeningUrl(third);
    expect(everything(third)).not.toContain(newPassword);
    const admin3 = apiAs(url3, newToken!);
    expect((await admin3.get(`/api/v1/projects/${project}`)).status).toBe(200);
    expect((await admin3.get(`/api/v1/projects/${later}`)).status).toBe(200);
    expect((await apiAs(url3, token!).get('/api/v1/projects')).status).toBe(401);
    expect((await login(url3, 'admin', newPassword)).status).toBe(200);
    expect((await login(url3, 'admin', password)).status).toBe(401);
    expect(await stop(third)).toBe(0);
  }, 180_000);

  it('ADMIN_PASSWORD on a fresh data dir is the password, and is never printed', async () => {
    const dataDir = await freshDataDir();
    const given = `given-${randomUUID()}`;
    const p = start(dataDir, { ADMIN_PASSWORD: given });
    const url = await listeningUrl(p);
    const { status, token } = await login(url, 'admin', given);
    expect(status).toBe(200);
    expect((await apiAs(url, token!).get('/api/v1/account')).body).toMatchObject({ userID: 'admin', serverAdmin: true });
    expect((await login(url, 'admin', 'not-the-password')).status).toBe(401);
    expect(await stop(p)).toBe(0);
    expect(everything(p)).not.toContain(given);
    expect(logLines(p).filter((l) => 'password' in l)).toEqual([]);
  });

  it('ADMIN_PASSWORD on a data dir that has a password is ignored with a warning saying how to reset it; reset-password does', async () => {
    const dataDir = await freshDataDir();
    const given = `given-${randomUUID()}`;
    const first = start(dataDir, { ADMIN_PASSWORD: given });
    await listeningUrl(first);
    expect(await stop(first)).toBe(0);

    const second = start(dataDir, { ADMIN_PASSWORD: 'another-password' });
    const url = await listeningUrl(second);
    const warning = logLines(second).find((l) => String(l.msg).startsWith('ADMIN_PASSWORD is ignored'));
    expect(warning).toMatchObject({ level: 40, msg: expect.stringContaining('admin reset-password') });
    expect((await login(url, 'admin', 'another-password')).status).toBe(401);
    const { token } = await login(url, 'admin', given);
    expect(await stop(second)).toBe(0);

    // The operator's reset: a generated password, shown framed, on the same data dir.
    const reset = start(dataDir, {}, ['admin', 'reset-password']);
    expect(await reset.exited).toBe(0);
    const generated = boxedPassword(reset)!;
    expect(generated.length).toBeGreaterThanOrEqual(16);
    // Or a chosen one, from standard input (never from the command line, where `ps` would show it).
    const chosen = `chosen-${randomUUID()}`;
    const resetAgain = start(dataDir, {}, ['admin', 'reset-password', '--password-stdin'], `${chosen}\n`);
    expect(await resetAgain.exited).toBe(0);
    expect(resetAgain.out()).toContain('admin password changed');
    expect(everything(resetAgain)).not.toContain(chosen);

    const third = start(dataDir);
    const url3 = await listeningUrl(third);
    expect((await login(url3, 'admin', chosen)).status).toBe(200);
    expect((await login(url3, 'admin', given)).status).toBe(401);
    expect((await login(url3, 'admin', generated)).status).toBe(401);
    // A reset revokes the admin's earlier sessions.
    expect((await apiAs(url3, token!).get('/api/v1/account')).status).toBe(401);
    expect(await stop(third)).toBe(0);
  }, 180_000);

  it('admin with an unknown task prints its usage and fails', async () => {
    const p = start(await freshDataDir(), {}, ['admin', 'rotate-everything']);
    expect(await p.exited).toBe(2);
    expect(p.err()).toContain('usage: portico-server admin reset-password');
  });
});
