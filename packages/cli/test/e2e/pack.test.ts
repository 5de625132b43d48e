import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt } from './run-cli.js';

// What a user outside the repository gets: `npm pack` of the SDK and the CLI, installed from the tarballs into
// an empty directory (third-party dependencies come from the npm registry), then used against a real server.

const run = promisify(execFile);
let dir: string;
let app: string;
let server: PorticoProcess;

/** Runs a command in the install directory with a clean environment (no PORTICO_* or repo paths). */
const inApp = (file: string, args: string[], input?: Record<string, string>) =>
  run(file, args, { cwd: app, env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), ...input }, timeout: 120_000 });

beforeAll(async () => {
  assertCliBuilt();
  dir = await mkdtemp(join(tmpdir(), 'portico-pack-'));
  app = join(dir, 'app');
  await mkdir(app, { recursive: true });
  // prepack builds dist/ first (a fresh clone has none), so what is packed is what the sources say now.
  const packed = await run('npm', ['pack', '-w', 'packages/client', '-w', 'packages/cli', '--pack-destination', dir, '--json'], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  // The build's own lines come first on stdout; npm's JSON report is the last thing printed.
  const report = packed.stdout.startsWith('[') ? packed.stdout : packed.stdout.slice(packed.stdout.lastIndexOf('\n[') + 1);
  const tarballs = (JSON.parse(report) as { filename: string }[]).map((t) => join(dir, t.filename));
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'uses-portico', private: true, type: 'module' }));
  // Third-party dependencies from the local npm cache where it has them (npm ci filled it), else the registry.
  await inApp('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs]);
  server = await startPorticoServer();
}, 600_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const installedManifest = async (name: string) =>
  JSON.parse(await readFile(join(app, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };

describe('npm pack tarballs installed outside the repository', () => {
  it('depend on registry packages only: the workspace packages are bundled, not listed', async () => {
    for (const name of ['@portico/client', '@portico/cli']) {
      const deps = Object.keys((await installedManifest(name)).dependencies ?? {});
      expect(deps.filter((d) => d.startsWith('@portico/'))).toEqual([]);
    }
    await expect(readFile(join(app, 'node_modules', '@portico', 'api', 'package.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('portico --version runs, and require() loads the SDK', async () => {
    const bin = join(app, 'node_modules', '.bin', 'portico');
    expect((await inApp(bin, ['--version'])).stdout.trim()).toBe(JSON.parse(await readFile(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')).version);
    // require() of the ES module package, as a CommonJS script does on Node >= 20.19.
    const required = await inApp(process.execPath, ['-e', "const sdk = require('@portico/client'); console.log(typeof sdk.createClient)"]);
    expect(required.stdout.trim()).toBe('function');
  });

  it('portico --help runs, and the CLI signs in and lists the catalog', async () => {
    const bin = join(app, 'node_modules', '.bin', 'portico');
    const help = await inApp(bin, ['--help']);
    expect(help.stdout).toMatch(/^Usage: portico \[options\] \[command\]/);
    expect(help.stdout).toContain('instance');
    const env = { PORTICO_CONFIG: join(dir, 'home', 'config.yaml') };
    const login = execFile(bin, ['login', server.url, '--username', 'admin', '--password-stdin'], { cwd: app, env: { PATH: process.env.PATH ?? '', ...env } });
    login.stdin!.end(server.adminPassword);
    expect(await new Promise((resolve) => login.on('close', resolve))).toBe(0);
    const list = await inApp(bin, ['rgd', 'list', '-o', 'name'], env);
    expect(list.stdout.split('\n')).toContain('rgd/web-app');
  });

  it('an SDK script imports @portico/client and talks to the server', async () => {
    await writeFile(
      join(app, 'script.mjs'),
      `import { createClient, loginLocal, PorticoApiError } from '@portico/client';
const [url, password] = process.argv.slice(2);
const { token } = await loginLocal(url, 'admin', password);
const portico = createClient({ baseUrl: url, token });
const kinds = [];
for await (const rgd of portico.rgds.all()) kinds.push(rgd.kind);
const missing = await portico.projects.get('no-such-project').catch((e) => e);
console.log(JSON.stringify({ kinds, typed: missing instanceof PorticoApiError, code: missing.code }));
`,
    );
    const res = await inApp(process.execPath, ['script.mjs', server.url, server.adminPassword]);
    const out = JSON.parse(res.stdout) as { kinds: string[]; typed: boolean; code: string };
    expect(out.kinds).toContain('WebApp');
    expect(out).toMatchObject({ typed: true, code: 'NOT_FOUND' });
  });

  it('ships type declarations that do not point at the unpublished @portico/api', async () => {
    const types = await readFile(join(app, 'node_modules', '@portico', 'client', 'dist', 'index.d.ts'), 'utf8');
    expect(types).not.toMatch(/from ['"]@portico\/api['"]/);
    expect(types).toContain('waitFor');
  });
});
