import type { Health, Instance, ServerMessage } from '@portico/api';
import { Option, type Command } from 'commander';
import YAML from 'yaml';
import type { App } from '../app.js';
import { parseDuration } from '../duration.js';
import { describeRef, resolveInstanceRef } from '../instance-ref.js';
import { palette, statusColor } from '../output/color.js';
import { age, print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { waitForDeletion } from '../wait.js';
import { registerInstanceCreate } from './instance-create.js';
import { formatOf, list, tableOptions, withOutput } from './shared.js';

interface ListOptions {
  output?: string;
  project?: string;
  namespace?: string;
  kind?: string;
  health?: Health;
}

function instanceTable(app: App, items: Instance[]): string {
  return renderTable(
    [
      { header: 'name', value: (i) => i.name },
      { header: 'namespace', value: (i) => i.namespace || '-' },
      { header: 'kind', value: (i) => i.kind },
      { header: 'project', value: (i) => i.project },
      { header: 'health', value: (i) => i.health, style: (t, p) => statusColor(p, t) },
      { header: 'mode', value: (i) => i.deploymentMode },
      { header: 'age', value: (i) => age(i.createdAt) },
    ],
    items,
    tableOptions(app.io),
  );
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
export function eventLine(m: ServerMessage): string | undefined {
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

  withOutput(instance.command('list').description('instances you may see'))
    .option('-p, --project <project>', 'only this project')
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('--kind <kind>', 'only this kind')
    .addOption(new Option('--health <health>', 'only this health').choices(['Healthy', 'Progressing', 'Degraded', 'Unhealthy', 'Unknown']))
    .action(async (opts: ListOptions, cmd: Command) => {
      const { client } = await app.session(cmd);
      const items: Instance[] = [];
      const filter = { project: opts.project, namespace: opts.namespace, kind: opts.kind, health: opts.health, pageSize: 500 };
      for await (const i of client.instances.all(filter)) items.push(i);
      print(app.io, formatOf(opts), { items, totalCount: items.length }, () =>
        items.length ? instanceTable(app, items) : 'No instances found.\n',
      );
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
    print(app.io, formatOf(opts), i, () => instanceDetails(app, i));
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
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      let fatal: Error | undefined;
      const sub = client.events.subscribe(
        { resourceType: 'instances', project: opts.project, namespace: opts.namespace },
        {
          signal: stop.signal,
          onError: (e) => {
            if ('status' in e && (e.status === 401 || e.status === 403)) fatal = e;
            else app.io.err(`warning: ${e.message}\n`);
          },
        },
      );
      try {
        for await (const m of sub) {
          if (opts.output === 'json') {
            if (m.type !== 'subscribed' && m.type !== 'pong') app.io.out(`${JSON.stringify(m)}\n`);
          } else {
            const line = eventLine(m);
            if (line) app.io.out(`${line}\n`);
          }
        }
      } catch (e) {
        fatal = e as Error;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (fatal) throw fatal;
    });
}
