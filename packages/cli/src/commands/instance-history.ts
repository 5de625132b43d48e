import type { InstanceChild, InstanceEvent, TimelineEntry } from '@portico/api';
import type { InstanceRef, PorticoClient } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { resolveInstanceRef } from '../instance-ref.js';
import { palette, statusColor } from '../output/color.js';
import { age, formatOutput, type OutputFormat } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { followInstance, withWatch } from './follow.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

interface Options {
  output?: string;
  namespace?: string;
  watch?: boolean;
}

const eventKey = (e: InstanceEvent) => `${e.involvedObject.kind}/${e.involvedObject.name}|${e.reason}|${e.firstTimestamp}|${e.lastTimestamp}|${e.count}|${e.message}`;

function eventsTable(app: App, items: InstanceEvent[]): string {
  const p = palette(app.io.color);
  return renderTable(
    [
      { header: 'last seen', value: (e) => age(e.lastTimestamp) },
      { header: 'type', value: (e) => e.type, style: (t) => (t === 'Warning' ? p.yellow(t) : t) },
      { header: 'reason', value: (e) => e.reason },
      { header: 'object', value: (e) => `${e.involvedObject.kind}/${e.involvedObject.name}` },
      { header: 'count', value: (e) => String(e.count) },
      { header: 'message', value: (e) => e.message },
    ],
    items,
    tableOptions(app.io),
  );
}

function timelineTable(app: App, items: TimelineEntry[]): string {
  return renderTable(
    [
      { header: 'time', value: (e) => e.timestamp },
      { header: 'type', value: (e) => e.type },
      { header: 'actor', value: (e) => e.actor ?? '' },
      { header: 'change', value: (e) => (e.toState !== undefined ? `${e.fromState || '-'} → ${e.toState}` : '') },
      { header: 'message', value: (e) => e.message },
    ],
    items,
    tableOptions(app.io),
  );
}

function childrenTable(app: App, items: InstanceChild[]): string {
  return renderTable(
    [
      { header: 'id', value: (c) => c.id },
      { header: 'kind', value: (c) => c.kind || '-' },
      { header: 'name', value: (c) => c.name },
      { header: 'namespace', value: (c) => c.namespace || '-' },
      { header: 'ready', value: (c) => (c.ready ? 'yes' : 'no') },
      { header: 'status', value: (c) => c.status, style: (t, p) => statusColor(p, t) },
      { header: 'message', value: (c) => c.message ?? '' },
    ],
    items,
    tableOptions(app.io),
  );
}

/**
 * Prints a list once, or with `-w` keeps printing what is new: machine formats one JSON object per line,
 * tables only the new rows (`incremental`) or the whole table again when it changed.
 */
async function show<T>(
  app: App,
  client: PorticoClient,
  ref: InstanceRef,
  opts: Options,
  read: () => Promise<{ items: T[] }>,
  table: (items: T[]) => string,
  keyOf: ((item: T) => string) | undefined,
  empty: string,
): Promise<void> {
  const format: OutputFormat = formatOf(opts);
  if (!opts.watch) {
    const res = await read();
    app.io.out(formatOutput(format, res, () => (res.items.length ? table(res.items) : empty)));
    return;
  }
  const seen = new Set<string>();
  let last = '';
  let first = true;
  await followInstance(app, client, ref, async () => {
    const { items } = await read();
    if (keyOf) {
      const fresh = items.filter((i) => !seen.has(keyOf(i)));
      for (const i of fresh) seen.add(keyOf(i));
      if (format !== 'table') for (const i of fresh) app.io.out(`${JSON.stringify(i)}\n`);
      else if (fresh.length) app.io.out(first ? table(fresh) : table(fresh).split('\n').slice(1).join('\n'));
      else if (first) app.io.out(empty);
    } else {
      const now = JSON.stringify(items);
      if (now === last) return;
      last = now;
      app.io.out(format === 'table' ? `${table(items)}\n` : `${JSON.stringify({ items })}\n`);
    }
    first = false;
  });
}

const instanceCommand = (parent: Command, name: string, description: string) =>
  withWatch(
    withOutput(
      parent
        .command(name)
        .description(description)
        .argument('<kind>', 'kind')
        .argument('<name>', 'instance name')
        .option('-n, --namespace <namespace>', 'namespace (found automatically when the name is unique)'),
    ),
  );

/** `portico instance events|history|children`: what an instance page shows besides the instance. */
export function registerInstanceHistory(instance: Command, app: App): void {
  const run =
    <T>(read: (client: PorticoClient, ref: InstanceRef) => Promise<{ items: T[] }>, table: (items: T[]) => string, keyOf: ((item: T) => string) | undefined, empty: string) =>
    async (kind: string, name: string, opts: Options, cmd: Command) => {
      const { client } = await app.session(cmd);
      const ref = await resolveInstanceRef(client, kind, name, opts.namespace);
      await show(app, client, ref, opts, () => read(client, ref), table, keyOf, empty);
    };

  instanceCommand(instance, 'events', 'Kubernetes Events of an instance and its resources').action(
    run((c, ref) => c.instances.events(ref), (items) => eventsTable(app, items), eventKey, 'No events.\n'),
  );
  instanceCommand(instance, 'history', 'the deployment history of an instance: created, changes, status').action(
    run((c, ref) => c.instances.timeline(ref), (items) => timelineTable(app, items), (e) => JSON.stringify(e), 'No history.\n'),
  );
  instanceCommand(instance, 'children', 'the resources kro manages for an instance').action(
    run((c, ref) => c.instances.children(ref), (items) => childrenTable(app, items), undefined, 'No resources.\n'),
  );
}
