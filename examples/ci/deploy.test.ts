import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient, loginLocal, type PorticoClient } from '@portico/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startPorticoServer, type PorticoProcess } from '../../packages/client/test/e2e/portico-server.js';
import { assertCliBuilt, cliBin } from '../../packages/cli/test/e2e/run-cli.js';

// examples/ci/deploy.yml's deploy step, run as the runner would run it: its script under bash, with `portico` on
// the PATH (the BUILT CLI), and nothing in the environment but what the step sets (a project token, the server).

const run = promisify(execFile);
let server: PorticoProcess;
let dir: string;
let admin: PorticoClient;

interface Step {
  name?: string;
  env?: Record<string, string>;
  run?: string;
}

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  dir = await mkdtemp(join(tmpdir(), 'portico-ci-example-'));
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'portico'), `#!/bin/sh\nexec "${process.execPath}" "${cliBin}" "$@"\n`);
  await chmod(join(dir, 'bin', 'portico'), 0o755);
  admin = createClient({ baseUrl: server.url, token: (await loginLocal(server.url, 'admin', server.adminPassword)).token });
  await admin.projects.create({ name: 'shop', destinations: [{ namespace: 'dev' }] });
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('examples/ci/deploy.yml', { timeout: 120_000 }, () => {
  it('deploys with a developer token of the project: creates the instance, then changes its image on the next run', async () => {
    const workflow = YAML.parse(await readFile(fileURLToPath(new URL('./deploy.yml', import.meta.url)), 'utf8')) as { jobs: { deploy: { steps: Step[] } } };
    const step = workflow.jobs.deploy.steps.find((s) => s.name === 'Deploy to Portico')!;
    expect(Object.keys(step.env!).sort()).toEqual(['IMAGE', 'PORTICO_SERVER', 'PORTICO_TOKEN']);
    const { token } = await admin.projects.tokens.create('shop', 'developer', { description: 'GitHub Actions: acme/shop' });
    const runStep = (image: string) =>
      run('bash', ['-c', step.run!], { env: { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`, HOME: dir, PORTICO_SERVER: server.url, PORTICO_TOKEN: token, IMAGE: image }, timeout: 90_000 });

    await runStep('nginx:1.27');
    expect(await admin.instances.get({ kind: 'WebApp', name: 'shop-web', namespace: 'dev' })).toMatchObject({ health: 'Healthy', spec: expect.objectContaining({ image: 'nginx:1.27' }) });
    await runStep('nginx:1.28');
    expect((await admin.instances.get({ kind: 'WebApp', name: 'shop-web', namespace: 'dev' })).spec).toEqual(expect.objectContaining({ image: 'nginx:1.28' }));
  });
});
