import type { ServerMessage, SubscriptionFilter } from '@portico/api';
import { isPorticoApiError, type InstanceRef, type PorticoClient } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import type { Io } from '../io.js';
import { renderJsonPath } from '../output/jsonpath.js';
import type { OutputFormat } from '../output/render.js';

/** `-w, --watch` on a list command: after the list, print changes as they happen. */
export const withWatch = (cmd: Command) => cmd.option('-w, --watch', 'after the list, print each change as it happens (Ctrl-C stops)');

/**
 * Feeds the live events matching `filter` to `onMessage` until Ctrl-C (or SIGTERM), or until `onMessage`
 * answers `'stop'`, then returns normally: stopping a watch is how it is meant to end. A refused token ends it
 * with that error; other drops are warnings, the SDK reconnects by itself.
 */
export async function followEvents(
  app: App,
  client: PorticoClient,
  filter: SubscriptionFilter,
  onMessage: (m: ServerMessage) => void | 'stop' | Promise<void | 'stop'>,
): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let fatal: Error | undefined;
  const sub = client.events.subscribe(filter, {
    signal: stop.signal,
    onError: (e) => {
      if ('status' in e && (e.status === 401 || e.status === 403)) fatal = e;
      else app.io.err(`warning: ${e.message}\n`);
    },
  });
  try {
    for await (const m of sub) if ((await onMessage(m)) === 'stop') break;
  } catch (e) {
    fatal = e as Error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (fatal) throw fatal;
}

const about = (m: ServerMessage, ref: InstanceRef) =>
  (m.type === 'instance_update' || m.type === 'deploy_progress') && m.data.kind === ref.kind && m.data.name === ref.name && (m.data.namespace || '') === (ref.namespace || '');

/** `-w` on one instance's view: shows once, then again after every change of it, until Ctrl-C or until it is gone. */
export async function followInstance(app: App, client: PorticoClient, ref: InstanceRef, show: () => Promise<void>): Promise<void> {
  await show();
  await followEvents(app, client, { resourceType: 'instances', namespace: ref.namespace || undefined, name: ref.name }, async (m) => {
    if (!about(m, ref)) return;
    if (m.type === 'instance_update' && m.data.action === 'delete') return 'stop'; // nothing left to read
    try {
      await show();
    } catch (error) {
      // The read of an earlier change can meet the instance already gone, its deletion still on its way to us.
      if (isPorticoApiError(error) && error.code === 'NOT_FOUND') return 'stop';
      throw error;
    }
  });
}

/**
 * A table's rows without its header line, for the rows a watch adds under the first table; with `--no-headers`
 * the table has none to drop.
 */
export const rowsOnly = (io: Io, table: string) => (io.tableHeaders === false ? table : table.slice(table.indexOf('\n') + 1));

/**
 * What a watch prints for one changed object: JSON and YAML print the whole event (one JSON object per line,
 * as `kubectl get -w -o json` streams), jsonpath reads the object, name its name, tables one row.
 */
export function changeLine(format: OutputFormat, event: unknown, object: unknown, row: () => string, name: () => string): string {
  if (format === 'json' || format === 'yaml') return `${JSON.stringify(event)}\n`;
  if (format.startsWith('jsonpath=')) return renderJsonPath(format.slice('jsonpath='.length), object);
  if (format === 'name') return `${name()}\n`;
  return row();
}
