import type { PorticoClient } from '@portico/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startAdminSession, type AdminSession } from './admin-session.js';
import { runCli, type CliUser } from './run-cli.js';

// `portico project delete NAME [--cascade]`: the BUILT binary against the REAL server. A project with instances
// is refused with their count and a hint; --cascade shows each instance's progress to a person, and -o json|yaml
// says what was deleted.

let session: AdminSession | undefined;
let ops: CliUser;
let sdk: PorticoClient;

beforeAll(async () => {
  session = await startAdminSession('portico-cli-project-delete-');
  ({ ops, sdk } = session);
});

afterAll(async () => {
  await session?.close();
});

/** A project deploying to dev with `names` WebApps in it. */
async function projectWith(project: string, names: string[]) {
  await sdk.projects.create({ name: project, destinations: [{ namespace: 'dev' }] });
  for (const name of names) await sdk.instances.create({ name, namespace: 'dev', kind: 'WebApp', project, values: { image: 'nginx' } });
}

describe('portico project delete', { timeout: 120_000 }, () => {
  it('refuses a project with instances, naming their count and --cascade, and deletes nothing', async () => {
    await projectWith('keep', ['keep-a', 'keep-b']);
    const refused = await runCli(ops, ['project', 'delete', 'keep']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('project "keep" still has 2 instance(s): delete them first, or run again with --cascade');
    expect((await sdk.instances.list({ project: 'keep' })).totalCount).toBe(2);
  });

  it('--cascade prints each instance as it goes, then the project', async () => {
    await projectWith('gone', ['gone-a', 'gone-b']);
    const res = await runCli(ops, ['project', 'delete', 'gone', '--cascade']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'WebApp/gone-a in dev  DELETING  deleting (1 of 2): project "gone" is being deleted',
        'WebApp/gone-a in dev  DELETED  deleted (1 of 2)',
        'WebApp/gone-b in dev  DELETING  deleting (2 of 2): project "gone" is being deleted',
        'WebApp/gone-b in dev  DELETED  deleted (2 of 2)',
      ]),
    );
    expect(lines.at(-1)).toBe('project "gone" deleted with its 2 instance(s)');
    expect((await sdk.projects.list()).items.map((p) => p.name)).not.toContain('gone');
  });

  it('-o json and -o yaml say what was deleted, with nothing else on stdout', async () => {
    await projectWith('asjson', ['asjson-a']);
    const json = await runCli(ops, ['project', 'delete', 'asjson', '--cascade', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ project: 'asjson', instances: [{ namespace: 'dev', kind: 'WebApp', name: 'asjson-a', deploymentMode: 'direct' }] });

    await sdk.projects.create({ name: 'asyaml', destinations: [{ namespace: 'dev' }] });
    const yaml = await runCli(ops, ['project', 'delete', 'asyaml', '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(YAML.parse(yaml.stdout)).toEqual({ project: 'asyaml', instances: [] });
  });
});
