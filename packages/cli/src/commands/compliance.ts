import type { ServerMessage } from '@portico/api';
import { ConstraintUpdate, TemplateUpdate, ViolationUpdate, type ComplianceSummary, type Constraint, type ConstraintTemplate, type Violation } from '@portico/api/enterprise';
import { Argument, Option, type Command } from 'commander';
import type { App } from '../app.js';
import { usageError } from '../exit-codes.js';
import { age, print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { changeLine, followEvents, rowsOnly, withWatch } from './follow.js';
import { formatOf, tableOptions, withAllProjects, withOutput } from './shared.js';

const enforcements = ['deny', 'warn', 'dryrun'] as const;
type Enforcement = (typeof enforcements)[number];

const resourceName = (v: Violation) => `${v.resource.kind}/${v.resource.namespace ? `${v.resource.namespace}/` : ''}${v.resource.name}`;

const violationTable = (app: App, items: Violation[], wide: boolean) =>
  renderTable<Violation>(
    [
      { header: 'constraint', value: (v) => `${v.constraintKind}/${v.constraintName}` },
      { header: 'enforcement', value: (v) => v.enforcementAction },
      { header: 'resource', value: resourceName },
      { header: 'project', value: (v) => v.project ?? '-' },
      { header: 'message', value: (v) => v.message },
      { header: 'api group', value: (v) => v.resource.apiGroup || 'core', wide: true },
    ],
    items,
    tableOptions(app.io, wide),
  );

const constraintTable = (app: App, items: Constraint[], wide: boolean) =>
  renderTable<Constraint>(
    [
      { header: 'kind', value: (c) => c.kind },
      { header: 'name', value: (c) => c.name },
      { header: 'enforcement', value: (c) => c.enforcementAction },
      { header: 'violations', value: (c) => String(c.violationCount) },
      { header: 'namespaces', value: (c) => (c.match.namespaces.length ? c.match.namespaces.join(',') : '*'), wide: true },
      { header: 'template', value: (c) => c.templateName, wide: true },
      { header: 'age', value: (c) => age(c.createdAt) },
    ],
    items,
    tableOptions(app.io, wide),
  );

const templateTable = (app: App, items: ConstraintTemplate[], wide: boolean) =>
  renderTable<ConstraintTemplate>(
    [
      { header: 'name', value: (t) => t.name },
      { header: 'kind', value: (t) => t.kind },
      { header: 'description', value: (t) => t.description },
      { header: 'age', value: (t) => age(t.createdAt) },
    ],
    items,
    tableOptions(app.io, wide),
  );

/** Every item of an SDK iterator, for a list printed whole. */
async function collectAll<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The compliance events of one kind from a `violations` subscription, read with the contract's schema. */
function eventOf<T>(m: ServerMessage, type: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }): T | undefined {
  if (m.type !== type) return undefined;
  const parsed = schema.safeParse(m.data);
  return parsed.success ? parsed.data : undefined;
}

const summaryDetails = (app: App, s: ComplianceSummary) =>
  renderDetails(
    [
      ['Templates', String(s.totalTemplates)],
      ['Constraints', `${s.totalConstraints} (deny ${s.byEnforcement.deny}, warn ${s.byEnforcement.warn}, dryrun ${s.byEnforcement.dryrun})`],
      ['Violations', String(s.totalViolations)],
    ],
    tableOptions(app.io),
  );

/**
 * `portico compliance status|summary|templates|constraints|violations|enforce`: OPA Gatekeeper as Portico sees it
 * (Enterprise, license feature `compliance`). Lists show what the caller may see; `-w` keeps printing changes.
 * `compliance export` (compliance-export.ts) joins the same group.
 */
export function registerCompliance(program: Command, app: App): void {
  const compliance = program.command('compliance').description('OPA Gatekeeper compliance (Enterprise): violations and their history');

  withOutput(compliance.command('status').description('whether Gatekeeper is installed and read')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const s = await client.compliance.status();
    print(app.io, formatOf(opts), s, () => renderDetails([['Gatekeeper', s.gatekeeper], ['Available', s.available ? 'yes' : 'no'], ['Message', s.message]], tableOptions(app.io)));
  });

  withWatch(withOutput(compliance.command('summary').description('templates, constraints by enforcement, violations you may see'))).action(
    async (opts: { output?: string; watch?: boolean }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const format = formatOf(opts);
      const show = async () => {
        const s = await client.compliance.summary();
        print(app.io, format, s, () => summaryDetails(app, s));
      };
      await show();
      if (!opts.watch) return;
      // Any change can move a total: show the summary again after a change, once for all the changes that
      // arrive while it is being read (an audit pass sends hundreds at once).
      let reading: Promise<void> | undefined;
      let again = false;
      const refresh = () => {
        if (reading) {
          again = true;
          return;
        }
        reading = show()
          .catch((e: Error) => app.io.err(`warning: ${e.message}\n`))
          .finally(() => {
            reading = undefined;
            if (again) {
              again = false;
              refresh();
            }
          });
      };
      await followEvents(app, client, { resourceType: 'violations' }, (m) => {
        if (m.type === 'violation_update' || m.type === 'constraint_update' || m.type === 'template_update') refresh();
      });
      await reading;
    },
  );

  withWatch(withOutput(compliance.command('templates').description('ConstraintTemplates'))).action(async (opts: { output?: string; watch?: boolean }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const items = await collectAll(client.compliance.templatesAll());
    const format = formatOf(opts);
    print(app.io, format, { items, total: items.length }, {
      table: (wide) => (items.length ? templateTable(app, items, wide) : 'No constraint templates found.\n'),
      names: () => items.map((t) => `constrainttemplate/${t.name}`),
    });
    if (!opts.watch) return;
    await followEvents(app, client, { resourceType: 'violations' }, (m) => {
      const u = eventOf(m, 'template_update', TemplateUpdate);
      if (u) app.io.out(changeLine(format, m, u, () => `${u.action.padEnd(7)} ${u.name}  ${u.kind}\n`, () => `constrainttemplate/${u.name}`));
    });
  });

  withWatch(withOutput(compliance.command('constraints').description('constraints of every template kind')))
    .option('--kind <kind>', 'only this constraint kind (K8sRequiredLabels...)')
    .addOption(new Option('--enforcement <action>', 'only this enforcement action').choices(enforcements))
    .action(async (opts: { output?: string; watch?: boolean; kind?: string; enforcement?: Enforcement }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const items = await collectAll(client.compliance.constraintsAll({ kind: opts.kind, enforcement: opts.enforcement }));
      const format = formatOf(opts);
      print(app.io, format, { items, total: items.length }, {
        table: (wide) => (items.length ? constraintTable(app, items, wide) : 'No constraints found.\n'),
        names: () => items.map((c) => `${c.kind}/${c.name}`),
      });
      if (!opts.watch) return;
      await followEvents(app, client, { resourceType: 'violations' }, (m) => {
        const u = eventOf(m, 'constraint_update', ConstraintUpdate);
        if (!u || (opts.kind && u.kind !== opts.kind) || (opts.enforcement && u.enforcementAction !== opts.enforcement)) return;
        app.io.out(changeLine(format, m, u, () => `${u.action.padEnd(7)} ${u.kind}/${u.name}  ${u.enforcementAction}  violations=${u.violationCount}\n`, () => `${u.kind}/${u.name}`));
      });
    });

  // Without -p the list already spans every project the caller may see; -A says so, as kubectl users type it.
  withAllProjects(withWatch(withOutput(compliance.command('violations').description('current violations you may see'))))
    .option('-p, --project <project>', 'only this project')
    .option('--constraint <Kind/name>', 'only this constraint')
    .action(async (opts: { output?: string; watch?: boolean; project?: string; constraint?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const items = await collectAll(client.compliance.violationsAll({ project: opts.project, constraint: opts.constraint }));
      const format = formatOf(opts);
      print(app.io, format, { items, total: items.length }, {
        table: (wide) => (items.length ? violationTable(app, items, wide) : 'No violations found.\n'),
        names: () => items.map(resourceName),
      });
      if (!opts.watch) return;
      await followEvents(app, client, { resourceType: 'violations', project: opts.project }, (m) => {
        const u = eventOf(m, 'violation_update', ViolationUpdate);
        if (!u || (opts.project && u.project !== opts.project) || (opts.constraint && `${u.constraintKind}/${u.constraintName}` !== opts.constraint)) return;
        const row = () => `${u.action === 'add' ? '+' : '-'} ${rowsOnly(app.io, violationTable(app, [u], format === 'wide'))}`;
        app.io.out(changeLine(format, m, u, row, () => resourceName(u)));
      });
    });

  compliance
    .command('enforce')
    .description("change a constraint's enforcement action (Server Admin); applies to the next create")
    .argument('<Kind/name>', 'the constraint, e.g. K8sRequiredLabels/need-team')
    .addArgument(new Argument('<action>', 'deny, warn or dryrun').choices(enforcements))
    .action(async (ref: string, action: Enforcement, _opts: unknown, cmd: Command) => {
      const [kind, name, ...rest] = ref.split('/');
      if (!kind || !name || rest.length) throw usageError(`"${ref}" is not Kind/name (e.g. K8sRequiredLabels/need-team)`);
      const { client } = await app.session(cmd);
      const c = await client.compliance.setEnforcement({ kind, name }, action);
      app.io.out(`constraint ${c.kind}/${c.name} is now ${c.enforcementAction}\n`);
    });
}
