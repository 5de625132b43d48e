import { matchesLabelSelector, type Rgd, type RgdDetail } from '@portico/api';
import type { RgdFilter } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { usageError } from '../exit-codes.js';
import { statusColor } from '../output/color.js';
import { print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { schemaFields, type JsonSchemaNode } from '../schema-fields.js';
import { changeLine, followEvents, rowsOnly, withWatch } from './follow.js';
import { registerRgdViews } from './rgd-views.js';
import { formatOf, list, selectorOf, tableOptions, withOutput, withSelector } from './shared.js';

interface RgdListOptions {
  output?: string;
  watch?: boolean;
  category?: string;
  search?: string;
  extendsKind?: string;
  tags?: string;
  page?: string;
  pageSize?: string;
  selector?: string;
}

const positiveInt = (flag: string, text: string | undefined) => {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(text)) throw usageError(`${flag} must be a positive whole number, got "${text}"`);
  return Number(text);
};

const rgdName = (r: Pick<Rgd, 'name'>) => `rgd/${r.name}`;

export function rgdTable(app: App, items: Rgd[], wide = false): string {
  return renderTable(
    [
      { header: 'name', value: (r) => r.name },
      { header: 'kind', value: (r) => r.kind },
      { header: 'category', value: (r) => r.category },
      { header: 'status', value: (r) => r.status, style: (t, p) => statusColor(p, t) },
      { header: 'instances', value: (r) => String(r.instances) },
      { header: 'tags', value: (r) => r.tags.join(',') },
      { header: 'description', value: (r) => r.description || r.title },
      { header: 'api version', value: (r) => r.apiVersion, wide: true },
      { header: 'scope', value: (r) => (r.isClusterScoped ? 'Cluster' : 'Namespaced'), wide: true },
      { header: 'modes', value: (r) => r.allowedDeploymentModes.join(','), wide: true },
      { header: 'extends', value: (r) => r.extendsKinds.join(',') || '-', wide: true },
    ],
    items,
    tableOptions(app.io, wide),
  );
}

function rgdDetails(app: App, rgd: RgdDetail): string {
  const opts = tableOptions(app.io);
  let out = renderDetails(
    [
      ['Name', rgd.name],
      ['Title', rgd.title],
      ['Kind', `${rgd.kind} (${rgd.apiVersion})`],
      ['Scope', rgd.isClusterScoped ? 'Cluster' : 'Namespaced'],
      ['Category', rgd.category || '-'],
      ['Tags', list(rgd.tags)],
      ['Status', rgd.status],
      ['Deployment modes', list(rgd.allowedDeploymentModes)],
      ['Extends', list(rgd.extendsKinds)],
      ['Instances', String(rgd.instances)],
      ...(rgd.docsUrl ? ([['Docs', rgd.docsUrl]] as [string, string][]) : []),
      ['Resources', list(rgd.resources.map((r) => (r.kind ? `${r.id} (${r.kind})` : r.id)))],
      ['Description', rgd.description || '-'],
    ],
    opts,
  );
  const fields = schemaFields(rgd.schema as JsonSchemaNode);
  out += '\nValues:\n';
  out += fields.length
    ? renderTable(
        [
          { header: 'path', value: (f) => f.path },
          { header: 'type', value: (f) => f.type },
          { header: 'default', value: (f) => f.default },
          { header: 'required', value: (f) => (f.required ? 'yes' : 'no') },
          { header: 'description', value: (f) => f.description },
        ],
        fields,
        opts,
      )
    : '  (none)\n';
  return out;
}

export function registerRgd(program: Command, app: App): void {
  const rgd = program.command('rgd').description('the catalog of ResourceGraphDefinitions');

  withSelector(withWatch(withOutput(rgd.command('list').description('list catalog RGDs you may see'))))
    .option('--category <category>', 'only this category')
    .option('--search <text>', 'name, title or description contains')
    .option('--extends-kind <kind>', 'only RGDs extending this kind')
    .option('--tags <a,b>', 'only RGDs with every one of these tags')
    .option('--page <n>', 'fetch only this page (1-based)')
    .option('--page-size <n>', 'page size (default: all pages)')
    .action(async (opts: RgdListOptions, cmd: Command) => {
      const selector = selectorOf(opts.selector);
      const { client } = await app.session(cmd);
      const filter: RgdFilter = { category: opts.category, search: opts.search, extendsKind: opts.extendsKind, tags: opts.tags, labelSelector: opts.selector };
      const page = positiveInt('--page', opts.page);
      const pageSize = positiveInt('--page-size', opts.pageSize);
      if (page !== undefined || pageSize !== undefined) {
        const res = await client.rgds.list({ ...filter, page, pageSize });
        if (opts.watch) throw usageError('--watch follows the whole list: drop --page and --page-size');
        print(app.io, formatOf(opts), res, {
          table: (wide) => {
            const pages = Math.max(1, Math.ceil(res.totalCount / res.pageSize));
            return `${rgdTable(app, res.items, wide)}\nPage ${res.page} of ${pages} (${res.totalCount} in total)\n`;
          },
          names: () => res.items.map(rgdName),
        });
        return;
      }
      const items: Rgd[] = [];
      for await (const item of client.rgds.all({ ...filter, pageSize: 500 })) items.push(item);
      const format = formatOf(opts);
      print(app.io, format, { items, totalCount: items.length }, {
        table: (wide) => (items.length ? rgdTable(app, items, wide) : 'No RGDs found.\n'),
        names: () => items.map(rgdName),
      });
      if (!opts.watch) return;
      // The server filters events by what the caller may see; the list's own filters are applied here.
      const wanted = (r: Rgd) =>
        (!opts.category || r.category === opts.category) &&
        (!opts.extendsKind || r.extendsKinds.includes(opts.extendsKind)) &&
        (!opts.tags || opts.tags.split(',').every((t) => r.tags.includes(t.trim()))) &&
        (!opts.search || [r.name, r.title, r.description].some((t) => t.toLowerCase().includes(opts.search!.toLowerCase()))) &&
        (!selector || matchesLabelSelector(selector, r.labels));
      await followEvents(app, client, { resourceType: 'rgds' }, (m) => {
        if (m.type !== 'rgd_update' || !wanted(m.data.rgd)) return;
        const r = m.data.rgd;
        app.io.out(changeLine(format, m, r, () => rowsOnly(app.io, rgdTable(app, [r], format === 'wide')), () => rgdName(r)));
      });
    });

  withOutput(rgd.command('get').description('an RGD with its values schema').argument('<name>', 'RGD name')).action(
    async (name: string, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const detail = await client.rgds.get(name);
      print(app.io, formatOf(opts), detail, { table: () => rgdDetails(app, detail), names: () => [rgdName(detail)] });
    },
  );

  registerRgdViews(rgd, app);
}
