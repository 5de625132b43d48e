import type { ChildResource, HistoryEvent, InstanceEvent, TimelineEntry } from '@portico/api';
import type { InstanceRef, PorticoClient } from '@portico/client';
import { Option, type Command } from 'commander';
import type { App } from '../app.js';
import { resolveInstanceRef } from '../instance-ref.js';
import { palette, statusColor } from '../output/color.js';
import { age, formatOutput, type OutputFormat } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { exportToStdout } from './export-stream.js';
import { followInstance, withWatch } from './follow.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

interface Options {
  output?: string;
  namespace?: string;
  watch?: boolean;
}

const eventKey = (e: InstanceEvent) => `${e.object}|${e.reason}|${e.firstSeen}|${e.lastSeen}|${e.count}|${e.message}`;

function eventsTable(app: App, items: InstanceEvent[]): string {
  const p = palette(app.io.color);
  return renderTable(
    [
      { header: 'last seen', value: (e) => age(e.lastSeen) },
      { header: 'type', value: (e) => e.type, style: (t) => (t === 'Warning' ? p.yellow(t) : t) },
      { header: 'reason', value: (e) => e.reason },
      { header: 'object', value: (e) => e.object },
      { header: 'count', value: (e) => String(e.count) },
      { header: 'message', value: (e) => e.message },
    ],
    items,
    tableOptions(app.io),
  );
}

function historyTable(app: App, items: HistoryEvent[]): string {
  return renderTable(
    [
      { header: 'time', value: (e) => e.timestamp },
      { header: 'event', value: (e) => e.eventType },
      { header: 'status', value: (e) => e.status, style: (t, p) => statusColor(p, t) },
      { header: 'user', value: (e) => e.user ?? '' },
      { header: 'commit', value: (e) => e.gitCommitSha?.slice(0, 12) ?? '' },
      { header: 'message', value: (e) => e.message ?? '' },
    ],
    items,
    tableOptions(app.io),
  );
}

function timelineTable(app: App, items: TimelineEntry[]): string {
  return renderTable(
    [
      { header: 'time', value: (e) => e.timestamp },
      { header: 'event', value: (e) => (e.isCurrent ? `${e.eventType} *` : e.eventType) },
      { header: 'status', value: (e) => e.status, style: (t, p) => statusColor(p, t) },
      { header: 'user', value: (e) => e.user ?? '' },
      { header: 'message', value: (e) => e.message ?? '' },
    ],
    items,
    tableOptions(app.io),
  );
}

function childrenTable(app: App, items: ChildResource[]): string {
  return renderTable(
    [
      { header: 'id', value: (c) => c.nodeId },
      { header: 'kind', value: (c) => c.kind || '-' },
      { header: 'name', value: (c) => c.name },
      { header: 'namespace', value: (c) => c.namespace || '-' },
      { header: 'health', value: (c) => c.health, style: (t, p) => statusColor(p, t) },
      { header: 'status', value: (c) => c.status ?? '' },
    ],
    items,
    tableOptions(app.io),
  );
}

/** How one view reads its answer and the rows a table shows of it (machine formats print the answer as it is). */
interface View<R, T> {
  read: (client: PorticoClient, ref: InstanceRef) => Promise<R>;
  rows: (res: R) => T[];
  table: (items: T[]) => string;
  /** With `-w`: new rows only (by key), or the whole table again when anything changed. */
  keyOf?: (item: T) => string;
  empty: string;
}

/**
 * Prints an answer once, or with `-w` keeps printing what is new: machine formats one JSON object per line,
 * tables only the new rows (`keyOf`) or the whole table again when it changed.
 */
async function show<R, T>(app: App, client: PorticoClient, ref: InstanceRef, opts: Options, view: View<R, T>): Promise<void> {
  const format: OutputFormat = formatOf(opts);
  if (!opts.watch) {
    const res = await view.read(client, ref);
    const rows = view.rows(res);
    app.io.out(formatOutput(format, res, () => (rows.length ? view.table(rows) : view.empty)));
    return;
  }
  const seen = new Set<string>();
  let last = '';
  let first = true;
  await followInstance(app, client, ref, async () => {
    const items = view.rows(await view.read(client, ref));
    const { keyOf } = view;
    if (keyOf) {
      const fresh = items.filter((i) => !seen.has(keyOf(i)));
      for (const i of fresh) seen.add(keyOf(i));
      if (format !== 'table') for (const i of fresh) app.io.out(`${JSON.stringify(i)}\n`);
      else if (fresh.length) app.io.out(first ? view.table(fresh) : view.table(fresh).split('\n').slice(1).join('\n'));
      else if (first) app.io.out(view.empty);
    } else {
      const now = JSON.stringify(items);
      if (now === last) return;
      last = now;
      app.io.out(format === 'table' ? `${view.table(items)}\n` : `${JSON.stringify({ items })}\n`);
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

/** `portico instance events|history|timeline|children`: what an instance page shows besides the instance. */
export function registerInstanceHistory(instance: Command, app: App): void {
  const run =
    <R, T>(view: (opts: Options & Record<string, unknown>) => View<R, T>) =>
    async (kind: string, name: string, opts: Options & Record<string, unknown>, cmd: Command) => {
      const { client } = await app.session(cmd);
      const ref = await resolveInstanceRef(client, kind, name, opts.namespace);
      await show(app, client, ref, opts, view(opts));
    };

  instanceCommand(instance, 'events', 'Kubernetes Events of an instance and its resources, newest first').action(
    run(() => ({ read: (c, ref) => c.instances.events(ref), rows: (r) => r.events, table: (items) => eventsTable(app, items), keyOf: eventKey, empty: 'No events.\n' })),
  );

  instanceCommand(instance, 'history', 'the deployment history of an instance (kept 90 days after its deletion)')
    .addOption(new Option('--export <format>', 'print the history as a download instead: json or csv').choices(['json', 'csv']))
    .action(async (kind: string, name: string, opts: Options & { export?: 'json' | 'csv' }, cmd: Command) => {
      if (!opts.export) {
        return run(() => ({ read: (c, ref) => c.instances.history(ref), rows: (r) => r.events, table: (items) => historyTable(app, items), keyOf: (e) => e.id, empty: 'No history.\n' }))(kind, name, { ...opts }, cmd);
      }
      const { client } = await app.session(cmd);
      const ref = await resolveInstanceRef(client, kind, name, opts.namespace);
      const download = await client.instances.exportHistory(ref, opts.export);
      await exportToStdout(app, download.body, 'lines', opts.export === 'csv' ? 1 : 0);
    });

  instanceCommand(instance, 'timeline', 'the timeline of an instance, oldest first (the current step marked *)')
    .addOption(new Option('--source <source>', 'deployment (what was recorded, the default) or kubernetes (its Events)').choices(['deployment', 'kubernetes']))
    .action(
      run((opts) => ({
        read: (c, ref) => c.instances.timeline(ref, opts.source ? { source: opts.source as 'deployment' | 'kubernetes' } : {}),
        rows: (r) => r.timeline,
        table: (items) => timelineTable(app, items),
        keyOf: (e) => `${e.timestamp}|${e.eventType}|${e.status}|${e.message ?? ''}`,
        empty: 'No timeline.\n',
      })),
    );

  instanceCommand(instance, 'children', 'the resources kro manages for an instance, by resource id, with health').action(
    run(() => ({ read: (c, ref) => c.instances.children(ref), rows: (r) => r.groups.flatMap((g) => g.resources), table: (items) => childrenTable(app, items), empty: 'No resources.\n' })),
  );
}
