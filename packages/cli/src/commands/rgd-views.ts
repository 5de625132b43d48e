import type { FormProperty, RgdGraph, RgdSchemaResponse } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { registerRgdRevisions } from './rgd-revisions.js';
import { formatOf, list, tableOptions, withOutput } from './shared.js';

interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  default: string;
  constraints: string;
  description: string;
}

const shown = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

function constraintsOf(p: FormProperty): string {
  const parts: string[] = [];
  if (p.enum) parts.push(`one of ${p.enum.map(shown).join('|')}`);
  if (p.minimum !== undefined) parts.push(`>= ${p.minimum}`);
  if (p.maximum !== undefined) parts.push(`<= ${p.maximum}`);
  if (p.pattern !== undefined) parts.push(`matches ${p.pattern}`);
  return parts.join(', ');
}

const typeOf = (p: FormProperty): string => (p.type === 'array' && p.items ? `[]${typeOf(p.items)}` : p.type);

/** The form's fields depth first, in the order the RGD declares them (never alphabetical). */
function formRows(properties: Record<string, FormProperty>, order: string[], required: string[], prefix = ''): FieldRow[] {
  return order.flatMap((key) => {
    const p = properties[key];
    if (!p) return [];
    const path = prefix ? `${prefix}.${key}` : key;
    const row: FieldRow = { path, type: typeOf(p), required: required.includes(key), default: shown(p.default), constraints: constraintsOf(p), description: p.description ?? '' };
    const nested = p.properties ? formRows(p.properties, p.propertyOrder ?? Object.keys(p.properties), p.required ?? [], path) : [];
    return [row, ...nested];
  });
}

function schemaTable(app: App, res: RgdSchemaResponse): string {
  const { schema } = res;
  const rows = formRows(schema.properties, schema.propertyOrder, schema.required);
  const head = `${schema.kind} (${schema.group}/${schema.version}, ${schema.isClusterScoped ? 'cluster-scoped' : 'namespaced'})${res.crdFound ? '' : ' — not served yet'}\n`;
  if (!rows.length) return `${head}No fields.\n`;
  return (
    head +
    renderTable(
      [
        { header: 'field', value: (r) => r.path },
        { header: 'type', value: (r) => r.type },
        { header: 'required', value: (r) => (r.required ? 'yes' : '') },
        { header: 'default', value: (r) => r.default },
        { header: 'constraints', value: (r) => r.constraints },
        { header: 'description', value: (r) => r.description },
      ],
      rows,
      tableOptions(app.io),
    )
  );
}

function graphTable(app: App, graph: RgdGraph): string {
  if (!graph.resources.length) return 'No resources.\n';
  const flags = (r: RgdGraph['resources'][number]) =>
    [r.isTemplate ? 'template' : 'external', r.isConditional ? 'conditional' : '', r.isCollection ? 'collection' : ''].filter(Boolean).join(',');
  return renderTable(
    [
      { header: 'id', value: (r) => r.id },
      { header: 'kind', value: (r) => (r.kind ? `${r.kind} (${r.apiVersion})` : '-') },
      { header: 'depends on', value: (r) => list(r.dependsOn) },
      { header: 'flags', value: flags },
    ],
    graph.resources,
    tableOptions(app.io),
  );
}

/** `portico rgd schema|graph|revisions|revision|diff`: what a deploy form, a graph view and a revisions tab read. */
export function registerRgdViews(rgd: Command, app: App): void {
  withOutput(rgd.command('schema').description('the deploy form of an RGD: its fields in declaration order').argument('<name>', 'RGD name')).action(
    async (name: string, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const res = await client.rgds.schema(name);
      print(app.io, formatOf(opts), res, () => schemaTable(app, res));
    },
  );

  withOutput(rgd.command('graph').description('the resources of an RGD and what each depends on').argument('<name>', 'RGD name')).action(
    async (name: string, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const graph = await client.rgds.graph(name);
      print(app.io, formatOf(opts), graph, () => graphTable(app, graph));
    },
  );

  registerRgdRevisions(rgd, app);
}
