import type { AuditConfig, AuditEvent, AuditFilterQuery } from '@portico/api/enterprise';
import { Option, type Command } from 'commander';
import type { App } from '../app.js';
import { lookbackMs, rfc3339 } from '../duration.js';
import { usageError } from '../exit-codes.js';
import { print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { exportToStdout } from './export-stream.js';
import { collect, formatOf, list, tableOptions, withOutput } from './shared.js';

interface FilterOptions {
  since?: string;
  from?: string;
  to?: string;
  user?: string;
  action?: string;
  resource?: string;
  project?: string;
  namespace?: string;
  result?: 'success' | 'denied' | 'error';
}

function filterOf(opts: FilterOptions, now = Date.now()): AuditFilterQuery {
  if (opts.since && opts.from) throw usageError('use --since or --from, not both');
  return {
    userId: opts.user,
    action: opts.action,
    resource: opts.resource,
    project: opts.project,
    namespace: opts.namespace,
    result: opts.result,
    from: opts.since ? new Date(now - lookbackMs(opts.since)).toISOString() : opts.from && rfc3339(opts.from, '--from'),
    to: opts.to && rfc3339(opts.to, '--to'),
  };
}

const withFilters = (cmd: Command) =>
  cmd
    .option('--since <duration>', 'events of the last 30m, 1h, 7d...')
    .option('--from <time>', 'events at or after this RFC 3339 time')
    .option('--to <time>', 'events at or before this RFC 3339 time')
    .option('--user <id>', 'events of this user')
    .option('--action <action>', 'create, update, delete, login, login_failed...')
    .option('--resource <resource>', 'projects, instances, accounts, audit...')
    .option('--project <name>', 'events in this project')
    .option('--namespace <name>', 'events in this namespace')
    .addOption(new Option('--result <result>', 'outcome').choices(['success', 'denied', 'error']));

const what = (e: AuditEvent) => [e.resource, e.project, e.namespace, e.name].filter((p) => p).join('/');

const eventRows = (app: App, events: AuditEvent[]) =>
  renderTable(
    [
      { header: 'time', value: (e) => e.timestamp },
      { header: 'user', value: (e) => e.userId },
      { header: 'action', value: (e) => e.action },
      { header: 'object', value: what },
      { header: 'result', value: (e) => `${e.result} ${e.httpStatus}` },
      { header: 'source', value: (e) => e.sourceIP },
      { header: 'id', value: (e) => e.id },
    ],
    events,
    tableOptions(app.io),
  );

export function registerAudit(program: Command, app: App): void {
  const audit = program.command('audit').description('the audit trail (Enterprise; Server Admin by default)');

  withFilters(withOutput(audit.command('list').description('audit events, newest first')))
    .option('--limit <n>', 'at most this many events (pages of 200 are fetched as needed)', '50')
    .action(async (opts: FilterOptions & { output?: string; limit: string }, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit must be a positive whole number');
      const { client } = await app.session(cmd);
      const events: AuditEvent[] = [];
      for await (const event of client.audit.all(filterOf(opts))) {
        events.push(event);
        if (events.length >= limit) break;
      }
      print(app.io, formatOf(opts), { events }, () => (events.length ? eventRows(app, events) : 'No audit events found.\n'));
    });

  withOutput(audit.command('get').description('one audit event with its details').argument('<id>', 'event id (ULID)')).action(
    async (id: string, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const e = await client.audit.get(id);
      print(app.io, formatOf(opts), e, () =>
        renderDetails(
          [
            ['ID', e.id],
            ['Time', e.timestamp],
            ['User', e.userEmail ? `${e.userId} <${e.userEmail}>` : e.userId],
            ['Action', e.action],
            ['Object', what(e)],
            ['Result', `${e.result} (${e.httpStatus})`],
            ['Source', `${e.sourceIP} ${e.userAgent}`],
            ['Request', e.requestId],
            ['Details', JSON.stringify(e.details)],
            ...(e.erased ? [['Erased', `${e.erased.at} by ${e.erased.by}: ${e.erased.reason}`] as [string, string]] : []),
          ],
          tableOptions(app.io),
        ),
      );
    },
  );

  withOutput(
    audit
      .command('erase')
      .description('erase the details of one event (Server Admin); it keeps its place in the chain, and the erasure is itself an event')
      .argument('<id>', 'event id (ULID)')
      .requiredOption('--reason <text>', 'why the details go (kept with the event)'),
  ).action(async (id: string, opts: { output?: string; reason: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const e = await client.audit.erase(id, opts.reason);
    print(app.io, formatOf(opts), e, () => `Details of event ${e.id} erased by ${e.erased?.by ?? '?'} at ${e.erased?.at ?? '?'}: ${e.erased?.reason ?? ''}\n`);
  });

  withFilters(audit.command('export').description('every matching event to stdout as CSV or NDJSON (progress on stderr)'))
    .addOption(new Option('-o, --output <format>', 'export format').choices(['csv', 'ndjson']).default('csv'))
    .action(async (opts: FilterOptions & { output: 'csv' | 'ndjson' }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const download = await client.audit.export({ ...filterOf(opts), format: opts.output });
      await exportToStdout(app, download.body, 'events', opts.output === 'csv' ? 1 : 0);
    });

  withOutput(audit.command('stats').description('totals, today by action and result, top users')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const s = await client.audit.stats();
    const counts = (m: Record<string, number>) => list(Object.entries(m).map(([k, v]) => `${k}=${v}`));
    print(app.io, formatOf(opts), s, () =>
      renderDetails(
        [
          ['Total events', String(s.totalEvents)],
          ['Events today', String(s.eventsToday)],
          ['Denied today', String(s.deniedAttempts)],
          ['By action today', counts(s.byActionToday)],
          ['By result today', counts(s.byResultToday)],
          ['Top users today', list(s.topUsers.map((u) => `${u.userId} (${u.count})`))],
        ],
        tableOptions(app.io),
      ),
    );
  });

  withOutput(audit.command('verify').description('recompute the hash chain (exit 1 when broken)')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const v = await client.audit.verify();
    print(app.io, formatOf(opts), v, () =>
      v.ok ? `Chain intact: ${v.checked} events checked.\n` : `Chain BROKEN at event ${v.firstBrokenId ?? '(end of chain)'} after ${v.checked} events.\n`,
    );
    if (!v.ok) app.exitCode = 1;
  });

  const config = audit.command('config').description('audit settings (apply on every replica)');
  const showConfig = (opts: { output?: string }, c: AuditConfig) =>
    print(app.io, formatOf(opts), c, () =>
      renderDetails(
        [
          ['Enabled', c.enabled ? 'yes' : 'no'],
          ['Retention (days)', String(c.retentionDays)],
          ['Max stream length', String(c.maxStreamLength)],
          ['Excluded actions', list(c.excludeActions)],
          ['Excluded resources', list(c.excludeResources)],
        ],
        tableOptions(app.io),
      ),
    );
  withOutput(config.command('show').description('current settings')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    showConfig(opts, await client.audit.getConfig());
  });
  withOutput(config.command('set').description('change settings; options not given keep their value'))
    .addOption(new Option('--enabled <bool>', 'record events').choices(['true', 'false']))
    .option('--retention-days <days>', '1 to 3650')
    .option('--exclude-action <action>', 'do not record this action (repeatable; replaces the list)', collect)
    .option('--exclude-resource <resource>', 'do not record this resource (repeatable; replaces the list)', collect)
    .action(async (opts: { output?: string; enabled?: string; retentionDays?: string; excludeAction?: string[]; excludeResource?: string[] }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const current = await client.audit.getConfig();
      const next: AuditConfig = {
        enabled: opts.enabled === undefined ? current.enabled : opts.enabled === 'true',
        retentionDays: opts.retentionDays === undefined ? current.retentionDays : Number(opts.retentionDays),
        maxStreamLength: current.maxStreamLength,
        excludeActions: opts.excludeAction ?? current.excludeActions,
        excludeResources: opts.excludeResource ?? current.excludeResources,
      };
      showConfig(opts, await client.audit.updateConfig(next));
    });
}
