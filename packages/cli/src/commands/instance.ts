import { matchesLabelSelector, type Health, type Instance, type ServerMessage } from '@portico/api';
import { Option, type Command } from 'commander';
import YAML from 'yaml';
import type { App } from '../app.js';
import { parseDuration } from '../duration.js';
import { describeRef, resolveInstanceRef } from '../instance-ref.js';
import { palette, statusColor } from '../output/color.js';
import { age, print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { waitForDeletion } from '../wait.js';
import { changeLine, followEvents, rowsOnly, withWatch } from './follow.js';
import { registerInstanceCreate } from './instance-create.js';
import { registerInstanceEdit } from './instance-edit.js';
import { registerInstanceHistory } from './instance-history.js';
import { formatOf, list, selectorOf, tableOptions, withAllProjects, withOutput, withSelector } from './shared.js';

interface ListOptions {
  output?: string;
  watch?: boolean;
  project?: string;
  namespace?: string;
  kind?: string;
  health?: Health;
  selector?: string;
  allProjects?: boolean;
}

const instanceName = (i: Pick<Instance, 'kind' | 'name'>) => `${i.kind}/${i.name}`;

function instanceTable(app: App, items: Instance[], wide = false): string {
  return renderTable(
    [
      { header: 'name', value: (i) => i.name },
      { header: 'namespace', value: (i) => i.namespace || '-' },
      { header: 'kind', value: (i) => i.kind },
      { header: 'project', value: (i) => i.project },
      { header: 'health', value: (i) => i.health, style: (t, p) => statusColor(p, t) },
      { header: 'mode', value: (i) => i.deploymentMode },
      { header: 'age', value: (i) => age(i.createdAt) },
      { header: 'rgd', value: (i) => i.rgdName, wide: true },
      { header: 'state', value: (i) => i.status.state || '-', wide: true },
      { header: 'created by', value: (i) => i.createdBy, wide: true },
    ],
    items,
    tableOptions(app.io, wide),
  );
}

/** §13: where a Git-mode instance lives, and whether the cluster still matches Git. */
function gitRows(i: Instance): [string, string][] {
  if (!i.gitInfo && i.gitopsDrift === undefined) return [];
  const where: [string, string][] = i.gitInfo
    ? [
        ['Repository', `${i.gitInfo.repositoryId} (${i.gitInfo.repositoryUrl})`],
        ['Git file', `${i.gitInfo.branch}:${i.gitInfo.path}`],
        ['Git commit', i.gitInfo.commitUrl ?? (i.gitInfo.commitSha || '-')],
      ]
    : [];
  const drift = i.gitopsDrift ? `DRIFTED since ${i.driftedAt ?? '-'}: the live spec differs from Git (-o yaml shows desiredSpec)` : 'none: the live spec matches Git';
  return [...where, ['Drift', drift]];
}

function instanceDetails(app: App, i: Instance): string {
  const opts = tableOptions(app.io);
  const p = palette(app.io.color);
  let out = renderDetails(
    [
      ['Name', i.name],
      ['Namespace', i.namespace || '(cluster-scoped)'],
      ['Kind', `${i.kind} (${i.apiVersion})`],
      ['RGD', i.rgdName],
      ['Project', i.project],
      ['Health', statusColor(p, i.health)],
      ['State', i.status.state || '-'],
      ['Deployment mode', i.deploymentMode],
      ...gitRows(i),
      ['Created', `${i.createdAt} by ${i.createdBy}`],
      ['Updated', i.updatedAt],
      ['Labels', list(Object.entries(i.labels).map(([k, v]) => `${k}=${v}`))],
      ['Resource version', i.resourceVersion],
    ],
    opts,
  );
  const conditions = i.conditions.length ? i.conditions : i.status.conditions;
  out += '\nConditions:\n';
  out += conditions.length
    ? renderTable(
        [
          { header: 'type', value: (c) => c.type },
          { header: 'status', value: (c) => c.status },
          { header: 'reason', value: (c) => c.reason ?? '' },
          { header: 'message', value: (c) => c.message ?? '' },
        ],
        conditions,
        opts,
      )
    : '  (none)\n';
  const spec = YAML.stringify(i.spec).trimEnd();
  out += `\nSpec:\n${Object.keys(i.spec).length ? spec.replace(/^/gm, '  ') : '  {}'}\n`;
  return out;
}

/** One line per event for `instance watch`. */
function eventLine(m: ServerMessage): string | undefined {
  switch (m.type) {
    case 'instance_update': {
      const d = m.data;
      return `${m.timestamp}  ${d.action.padEnd(6)}  ${d.kind}/${d.name}  ns=${d.namespace || '-'}  project=${d.project}  health=${d.instance.health}`;
    }
    case 'deploy_progress': {
      const d = m.data;
      return `${m.timestamp}  deploy  ${d.kind}/${d.name}  ns=${d.namespace || '-'}  ${d.readyResources}/${d.totalResources} ready  ${d.phase}${d.message ? `  ${d.message}` : ''}`;
    }
    case 'error':
      return `${m.timestamp}  error   ${m.data.code}: ${m.data.message}`;
    default:
      return undefined;
  }
}

export function registerInstance(program: Command, app: App): void {
  const instance = program.command('instance').description('instances of catalog kinds');

  registerInstanceCreate(instance, app);
  registerInstanceEdit(instance, app);
  registerInstanceHistory(instance, app);

  // Without -p the list already spans every project the caller may see: -A says so, as kubectl users type it.
  withAllProjects(withSelector(withWatch(withOutput(instance.command('list').description('instances you may see')))))
    .option('-p, --project <project>', 'only this project')
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('--kind <kind>', 'only this kind')
    .addOption(new Option('--health <health>', 'only this health').choices(['Healthy', 'Progressing', 'Degraded', 'Unhealthy', 'Unknown']))
    .action(async (opts: ListOptions, cmd: Command) => {
      const selector = selectorOf(opts.selector);
      const { client } = await app.session(cmd);
      const items: Instance[] = [];
      const filter = { project: opts.project, namespace: opts.namespace, kind: opts.kind, health: opts.health, labelSelector: opts.selector, pageSize: 500 };
      for await (const i of client.instances.all(filter)) items.push(i);
      const format = formatOf(opts);
      print(app.io, format, { items, totalCount: items.length }, {
        table: (wide) => (items.length ? instanceTable(app, items, wide) : 'No instances found.\n'),
        names: () => items.map(instanceName),
      });
      if (!opts.watch) return;
      const matches = (i: Instance) =>
        (!opts.kind || i.kind === opts.kind) && (!opts.health || i.health === opts.health) && (!selector || matchesLabelSelector(selector, i.labels));
      await followEvents(app, client, { resourceType: 'instances', project: opts.project, namespace: opts.namespace }, (m) => {
        if (m.type !== 'instance_update' || !matches(m.data.instance)) return;
        const i = m.data.instance;
        app.io.out(changeLine(format, m, i, () => rowsOnly(app.io, instanceTable(app, [i], format === 'wide')), () => instanceName(i)));
      });
    });

  withOutput(
    instance
      .command('get')
      .description('one instance with its conditions and spec')
      .argument('<kind>', 'kind')
      .argument('<name>', 'instance name')
      .option('-n, --namespace <namespace>', 'namespace (found automatically when the name is unique)'),
  ).action(async (kind: string, name: string, opts: { output?: string; namespace?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const i = await client.instances.get(await resolveInstanceRef(client, kind, name, opts.namespace));
    print(app.io, formatOf(opts), i, { table: () => instanceDetails(app, i), names: () => [instanceName(i)] });
  });

  instance
    .command('delete')
    .description('delete an instance')
    .argument('<kind>', 'kind')
    .argument('<name>', 'instance name')
    .option('-n, --namespace <namespace>', 'namespace (found automatically when the name is unique)')
    .option('--wait', 'wait until the instance is gone')
    .option('--timeout <duration>', 'how long --wait waits', '5m')
    .action(async (kind: string, name: string, opts: { namespace?: string; wait?: boolean; timeout: string }, cmd: Command) => {
      const timeoutMs = parseDuration(opts.timeout);
      const { client } = await app.session(cmd);
      const ref = await resolveInstanceRef(client, kind, name, opts.namespace);
      const deleted = await client.instances.delete(ref);
      if (!opts.wait) return app.io.out(`instance ${describeRef(ref)} deleting\n`);
      await waitForDeletion(client, { ...ref, project: deleted.project }, { timeoutMs });
      app.io.out(`instance ${describeRef(ref)} deleted\n`);
    });

  instance
    .command('watch')
    .description('print instance events as they happen (Ctrl-C stops)')
    .option('-p, --project <project>', 'only this project')
    .option('-n, --namespace <namespace>', 'only this namespace')
    .addOption(new Option('-o, --output <format>', 'output format: one line per event, or one JSON object per line').choices(['table', 'json']).default('table'))
    .action(async (opts: { project?: string; namespace?: string; output: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      await followEvents(app, client, { resourceType: 'instances', project: opts.project, namespace: opts.namespace }, (m) => {
        const line = opts.output === 'json' ? JSON.stringify(m) : eventLine(m);
        if (line) app.io.out(`${line}\n`);
      });
    });
}
