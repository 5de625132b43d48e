import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@portico/client';
import { createProject, createUser, uniqueName, type TestUser } from '../../../server/test/support/api-as.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { assertCliBuilt, cliBin, runCli, type CliUser } from '../../../cli/test/e2e/run-cli.js';
import { createConstraint } from '../support/constraints.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const labelledApp = new URL('./labelled-app.yaml', import.meta.url).pathname;

// The compliance commands of the BUILT CLI against a real Enterprise server with the simulated Gatekeeper:
// what a developer sees when a policy refuses or warns about a create, and what the read commands print.
describe('portico compliance and instance create under policies', () => {
  const { ee, admin } = useEnterprise('embedded', { manifests: [catalog, labelledApp], license: issueLicense(), gatekeeper: true });
  let home: string;
  let alice: TestUser;
  let project: string;
  let ops: CliUser;
  const as = (token: string, args: string[]) => runCli(ops, ['--server', ee.url, '--token', token, ...args]);
  /** A long-running `portico … -w` as `token`: what it printed so far, and Ctrl-C (resolves with its exit code). */
  const watching = (token: string, args: string[]) => {
    const child = spawn(process.execPath, [cliBin, '--server', ee.url, '--token', token, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, PORTICO_CONFIG: ops.configFile },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    return {
      output: async () => out,
      stop: () => {
        child.kill('SIGINT');
        return exited;
      },
    };
  };

  beforeAll(async () => {
    assertCliBuilt();
    home = await mkdtemp(join(tmpdir(), 'portico-compliance-cli-'));
    ops = { home, configFile: join(home, 'config.yaml') };
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    project = await createProject(ee, 'policed', ['team-a-dev']);
    alice = await createUser(ee, 'alice');
    expect((await admin.post(`/api/v1/projects/${project}/roles/developer/users/${alice.username}`)).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('a deny refusal exits 3 listing each violation; enforce switches it; a warn policy prints warnings; the lists and -w show the violations', async () => {
    const owner = uniqueName('need-owner');
    expect((await createConstraint(admin, {
      name: owner, templateName: 'k8srequiredlabels', enforcementAction: 'deny',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['team-a-dev'] },
      parameters: { labels: [{ key: 'owner' }] },
    })).status).toBe(201);

    const status = await as(alice.token, ['compliance', 'status']);
    expect(status.stdout).toMatch(/Gatekeeper:?\s+installed/);

    const app = uniqueName('web');
    const refused = await as(alice.token, ['instance', 'create', 'LabelledApp', app, '-p', project, '-n', 'team-a-dev']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/^error: FORBIDDEN: /);
    expect(refused.stderr).toContain(`  - K8sRequiredLabels/${owner} Deployment/${app}:`);
    expect(refused.stderr).toMatch(/owner/);
    expect((await admin.get(`/api/v1/namespaces/team-a-dev/instances/LabelledApp/${app}`)).status).toBe(404);

    // Only a Server Admin changes enforcement.
    expect((await as(alice.token, ['compliance', 'enforce', `K8sRequiredLabels/${owner}`, 'dryrun'])).code).toBe(3);
    const switched = await as(ee.adminToken, ['compliance', 'enforce', `K8sRequiredLabels/${owner}`, 'dryrun']);
    expect(switched.stdout).toBe(`constraint K8sRequiredLabels/${owner} is now dryrun\n`);
    expect((await as(ee.adminToken, ['compliance', 'enforce', 'no-slash', 'deny'])).code).toBe(2);

    const repos = uniqueName('trusted-registry');
    expect((await createConstraint(admin, {
      name: repos, templateName: 'k8sallowedrepos', enforcementAction: 'warn',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['team-a-dev'] },
      parameters: { repos: ['registry.example.com/'] },
    })).status).toBe(201);

    // alice watches her project's violations while she creates the instance the policies complain about.
    const watch = watching(alice.token, ['compliance', 'violations', '-p', project, '-w']);
    let exitCode: number | null = null;
    try {
      await eventually(watch.output, (out) => out.includes('No violations found.'), 'the watch to print the empty list');
      await new Promise((r) => setTimeout(r, 1000)); // the subscription opens after the list
      const made = await as(alice.token, ['instance', 'create', 'LabelledApp', app, '-p', project, '-n', 'team-a-dev', '--set', 'image=docker.io/library/nginx:1']);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain(`instance LabelledApp/${app} created in team-a-dev`);
      expect(made.stderr).toMatch(new RegExp(`^warning: K8sAllowedRepos/${repos} \\(Deployment/${app}\\): .*docker\\.io`, 'm'));
      expect(made.stderr).not.toContain(owner); // dryrun policies report in the audit only
      await eventually(watch.output, (out) => out.includes(`+ K8sRequiredLabels/${owner}`) && out.includes(`Deployment/team-a-dev/${app}`), 'the watch to print the new violation', { timeoutMs: 20_000 });
    } finally {
      exitCode = await watch.stop();
    }
    expect(exitCode).toBe(0);

    const listed = JSON.parse((await as(alice.token, ['compliance', 'violations', '-p', project, '-o', 'json'])).stdout) as { items: { constraintName: string }[]; total: number };
    expect(listed.items.map((v) => v.constraintName).sort()).toEqual([owner, repos].sort());
    expect(listed.total).toBe(2);
    const table = (await as(alice.token, ['compliance', 'violations', '-p', project, '--constraint', `K8sAllowedRepos/${repos}`])).stdout;
    expect(table).toMatch(/^CONSTRAINT\s+ENFORCEMENT\s+RESOURCE\s+PROJECT\s+MESSAGE/);
    expect(table.trim().split('\n')).toHaveLength(2);
    expect(table).toContain(`K8sAllowedRepos/${repos}`);

    // Templates and constraints are a Server Admin's (or a `compliance` policy's) to read.
    expect((await as(alice.token, ['compliance', 'constraints'])).code).toBe(3);
    const constraints = await as(ee.adminToken, ['compliance', 'constraints', '--kind', 'K8sRequiredLabels']);
    expect(constraints.stdout, constraints.stderr).toMatch(new RegExp(`K8sRequiredLabels\\s+${owner}\\s+dryrun\\s+1\\s`));
    expect((await as(ee.adminToken, ['compliance', 'constraints', '--enforcement', 'warn', '-o', 'name'])).stdout.split('\n')).toContain(`K8sAllowedRepos/${repos}`);
    expect((await as(ee.adminToken, ['compliance', 'templates', '-o', 'name'])).stdout.split('\n')).toEqual(expect.arrayContaining(['constrainttemplate/k8srequiredlabels', 'constrainttemplate/k8sallowedrepos']));
    const summary = JSON.parse((await as(alice.token, ['compliance', 'summary', '-o', 'json'])).stdout) as { totalViolations: number; byEnforcement: { warn: number } };
    expect(summary.totalViolations).toBe(2);
    const all = JSON.parse((await as(ee.adminToken, ['compliance', 'summary', '-o', 'json'])).stdout) as { byEnforcement: { warn: number; dryrun: number } };
    expect(all.byEnforcement.warn).toBeGreaterThanOrEqual(1);
    expect(all.byEnforcement.dryrun).toBeGreaterThanOrEqual(1);
    expect((await as(ee.adminToken, ['compliance', 'summary'])).stdout).toMatch(/^Templates:?\s+\d+\n/);

    // The SDK answers the same as the CLI printed.
    const sdk = createClient({ baseUrl: ee.url, token: alice.token });
    const viaSdk: string[] = [];
    for await (const v of sdk.compliance.violationsAll({ project })) viaSdk.push(v.constraintName);
    expect(viaSdk.sort()).toEqual([owner, repos].sort());
    expect((await createClient({ baseUrl: ee.url, token: ee.adminToken }).compliance.constraint({ kind: 'K8sRequiredLabels', name: owner })).violationCount).toBe(1);
    expect((await sdk.compliance.validate({ rgdName: 'labelled-app', project, namespace: 'team-a-dev', values: { labels: { owner: 'me' } } })).result).toBe('pass');
  }, 120_000);

  it('compliance summary -w shows the summary again when the audit finds a new violation', async () => {
    const watch = watching(alice.token, ['compliance', 'summary', '-w', '-o', 'json']);
    let exitCode: number | null = null;
    try {
      await eventually(watch.output, (o) => o.includes('"totalViolations": 2'), 'the first summary');
      await new Promise((r) => setTimeout(r, 1000)); // the subscription opens after the first summary
      const app = uniqueName('more');
      const made = await alice.post('/api/v1/namespaces/team-a-dev/instances/LabelledApp', { name: app, project, values: {} });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      await eventually(watch.output, (o) => o.includes('"totalViolations": 3'), 'the summary after the new violation', { timeoutMs: 20_000 });
    } finally {
      exitCode = await watch.stop();
    }
    expect(exitCode).toBe(0);
  }, 60_000);
});
