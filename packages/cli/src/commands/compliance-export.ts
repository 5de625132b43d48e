import { Option, type Command } from 'commander';
import type { App } from '../app.js';
import { sinceTime } from '../duration.js';
import { exportToStdout } from './export-stream.js';

interface ExportOptions {
  since: string;
  until?: string;
  enforcement?: 'deny' | 'warn' | 'dryrun';
  constraint?: string;
  resource?: string;
  status: 'active' | 'resolved' | 'all';
}

/** The `compliance` command group: the one already registered (live views), or a new one. */
const complianceGroup = (program: Command) =>
  program.commands.find((c) => c.name() === 'compliance') ??
  program.command('compliance').description('OPA Gatekeeper compliance (Enterprise): violations and their history');

/**
 * `portico compliance export --since 7d > file.csv`: the violation history as CSV on stdout, streamed as the
 * server sends it, with a running count on stderr. Records the caller may see only (their projects; all for
 * a Server Admin).
 */
export function registerComplianceExport(program: Command, app: App): void {
  complianceGroup(program)
    .command('export')
    .description('violation history as CSV to stdout (progress on stderr)')
    .requiredOption('--since <when>', 'records in force at or after: 7d, 24h, 30m ago, or an RFC 3339 time')
    .option('--until <when>', 'records first seen at or before: a duration ago or an RFC 3339 time')
    .addOption(new Option('--enforcement <action>', 'enforcement action').choices(['deny', 'warn', 'dryrun']))
    .option('--constraint <Kind/name>', 'records of one constraint')
    .option('--resource <Kind/namespace/name>', 'records of one resource (Kind/name when cluster-scoped)')
    .addOption(new Option('--status <status>', 'active, resolved or all').choices(['active', 'resolved', 'all']).default('all'))
    .action(async (opts: ExportOptions, cmd: Command) => {
      const now = Date.now();
      const query = {
        since: sinceTime(opts.since, '--since', now),
        until: opts.until === undefined ? undefined : sinceTime(opts.until, '--until', now),
        enforcement: opts.enforcement,
        constraint: opts.constraint,
        resource: opts.resource,
        status: opts.status,
      };
      const { client } = await app.session(cmd);
      const download = await client.compliance.exportHistory(query);
      await exportToStdout(app, download.body, 'records', 1);
    });
}
