import type { DeploymentMode, Rgd } from '@portico/api';
import type { PorticoClient } from '@portico/client';
import { Option, type Command } from 'commander';
import type { App } from '../app.js';
import { parseDuration } from '../duration.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import type { Io } from '../io.js';
import { askChoice, askConfirm, askText, need } from '../prompts.js';
import { missingRequired, type FieldRow, type JsonSchemaNode } from '../schema-fields.js';
import { applySets, parseScalar, readValuesFile, setPath, type Values } from '../values.js';
import { waitForHealthy } from '../wait.js';
import { formatOf, needProject, withSetOptions } from './shared.js';
import { dryRunCreate, valuesAsGiven } from './instance-dry-run.js';

interface CreateOptions {
  project?: string;
  namespace?: string;
  set?: string[];
  setString?: string[];
  file?: string;
  mode?: DeploymentMode;
  repo?: string;
  branch?: string;
  path?: string;
  dryRun?: boolean;
  output?: string;
  wait?: boolean;
  timeout: string;
}

/** The catalog RGD whose instances have this kind; the list has no kind filter, so it is found by walking it. */
async function rgdForKind(client: PorticoClient, kind: string): Promise<Rgd> {
  for await (const rgd of client.rgds.all({ pageSize: 500 })) if (rgd.kind === kind) return rgd;
  throw new CliError(`no catalog RGD has kind "${kind}" (see portico rgd list)`, ExitCode.no);
}

/** Asks for one missing field in the form its type calls for. */
async function askField(field: FieldRow): Promise<unknown> {
  const s = field.schema;
  const message = `${field.path} (${field.type})${field.description ? ` - ${field.description}` : ''}`;
  if (s.type === 'boolean') return askConfirm(message);
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    const choice = await askChoice(message, s.enum.map(String));
    return s.type === 'string' ? choice : Number(choice);
  }
  const text = await askText(message, (v) => {
    if (!v.trim()) return 'required';
    if ((s.type === 'integer' || s.type === 'number') && typeof parseScalar(v) !== 'number') return 'must be a number';
    return true;
  });
  return s.type === 'string' ? text : parseScalar(text);
}

async function namespaceFor(io: Io, client: PorticoClient, rgd: Rgd, project: string, given?: string): Promise<string | undefined> {
  if (rgd.isClusterScoped) {
    if (given) throw usageError(`${rgd.kind} is cluster-scoped: drop -n/--namespace`);
    return undefined;
  }
  return need(io, given, '-n, --namespace (the kind is namespaced)', async () => {
    const { namespaces } = await client.projects.namespaces(project);
    return namespaces.length ? askChoice('Namespace', namespaces) : askText('Namespace');
  });
}

async function collectValues(io: Io, schema: JsonSchemaNode, opts: CreateOptions): Promise<Values> {
  const base = opts.file ? await readValuesFile(opts.file) : {};
  const values = applySets(base, opts.set, opts.setString);
  const missing = missingRequired(schema, values);
  if (missing.length === 0) return values;
  if (!io.interactive) {
    const paths = missing.map((f) => f.path);
    throw usageError(`missing required value${paths.length > 1 ? 's' : ''} ${paths.join(', ')} (pass --set ${paths[0]}=… or -f values.yaml)`);
  }
  for (const field of missing) setPath(values, field.path, await askField(field));
  return values;
}

export function registerInstanceCreate(instance: Command, app: App): void {
  withSetOptions(
    instance
      .command('create')
      .description('create an instance of a catalog kind')
      .argument('<kind>', 'the kind, e.g. Postgres (see portico rgd list)')
      .argument('<name>', 'instance name')
      .option('-p, --project <project>', 'project the instance belongs to')
      .option('-n, --namespace <namespace>', 'namespace (namespaced kinds)'),
  )
    .option('-f, --file <values.yaml>', 'values from a YAML or JSON file (--set wins)')
    .addOption(new Option('--mode <mode>', 'deployment mode').choices(['direct', 'gitops', 'hybrid']))
    .option('--repo <id>', 'gitops/hybrid: the project\'s repository to push to (see portico repo list)')
    .option('--branch <branch>', 'gitops/hybrid: the branch (default: the repository\'s)')
    .option('--path <path>', 'gitops/hybrid: the file in the repository (default: <project>/<namespace>/<Kind>/<name>.yaml)')
    .option('--dry-run', 'run every check of the create on the server (preflight) and write nothing; exit 1 when it would fail')
    .option('-o, --output <format>', 'with --dry-run: table, wide, json or yaml', 'table')
    .option('--wait', 'wait until the instance is Healthy (exit 0) or Unhealthy/Degraded (exit 4)')
    .option('--timeout <duration>', 'how long --wait waits', '5m')
    .action(async (kind: string, name: string, opts: CreateOptions, cmd: Command) => {
      const { io } = app;
      const timeoutMs = parseDuration(opts.timeout);
      if ((opts.repo || opts.branch || opts.path) && opts.mode !== 'gitops' && opts.mode !== 'hybrid') throw usageError('--repo, --branch and --path go with --mode gitops or hybrid');
      const { client } = await app.session(cmd);
      const project = await needProject(io, client, opts.project, '-p, --project');
      const rgd = await rgdForKind(client, kind);
      const detail = await client.rgds.get(rgd.name);
      const namespace = await namespaceFor(io, client, rgd, project, opts.namespace);
      if (opts.dryRun && opts.wait) throw usageError('--dry-run creates nothing to --wait for');
      if (!opts.dryRun && opts.output !== 'table') throw usageError('-o goes with --dry-run');
      if (opts.dryRun) return dryRunCreate(io, client, { kind, name, project, namespace, values: await valuesAsGiven(opts), deploymentMode: opts.mode }, formatOf(opts));
      const values = await collectValues(io, detail.schema as JsonSchemaNode, opts);
      const git = { ...(opts.repo && { repositoryId: opts.repo }), ...(opts.branch && { gitBranch: opts.branch }), ...(opts.path && { gitPath: opts.path }) };
      const created = await client.instances.create({ kind, name, project, namespace, values, deploymentMode: opts.mode, ...git });
      const where = created.namespace ? ` in ${created.namespace}` : '';
      io.out(`instance ${created.kind}/${created.name} created${where} (project ${created.project}, mode ${created.deploymentMode})\n`);
      if (created.gitInfo) io.out(`pushed ${created.gitInfo.commitSha.slice(0, 12)} to ${created.gitInfo.repositoryUrl} ${created.gitInfo.branch}:${created.gitInfo.path}\n`);
      for (const line of warningLines(created.details?.warnings)) io.err(`${line}\n`);
      if (!opts.wait) return;
      const ref = { kind: created.kind, name: created.name, namespace: created.namespace, project: created.project };
      const healthy = await waitForHealthy(io, client, ref, { timeoutMs });
      io.out(`instance ${healthy.kind}/${healthy.name} is ${healthy.health}\n`);
    });
}

/** The findings a create went through with (Enterprise: `warn` constraints), one `warning:` line each on stderr. */
function warningLines(warnings: unknown[] | undefined): string[] {
  return (warnings ?? []).map((w) => {
    const { policy, message, field } = (w ?? {}) as { policy?: string; message?: string; field?: string };
    return `warning: ${policy ?? 'policy'}${field ? ` (${field})` : ''}: ${String(message ?? '').replace(/\s*\n\s*/g, ' ')}`;
  });
}
