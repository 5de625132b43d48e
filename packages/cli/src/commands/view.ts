import type { View } from '@portico/api/enterprise';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { rgdTable } from './rgd.js';
import { collect, formatOf, list, tableOptions, withOutput } from './shared.js';

interface ViewOptions {
  name?: string;
  description?: string;
  icon?: string;
  shared?: boolean;
  category?: string[];
  tag?: string[];
  project?: string[];
  search?: string;
  extendsKind?: string;
}

const filterOf = (opts: ViewOptions) => ({
  categories: opts.category ?? [],
  tags: opts.tag ?? [],
  projects: opts.project ?? [],
  ...(opts.search !== undefined && { search: opts.search }),
  ...(opts.extendsKind !== undefined && { extendsKind: opts.extendsKind }),
});

const viewTable = (app: App, items: View[]) =>
  renderTable(
    [
      { header: 'slug', value: (v) => v.slug },
      { header: 'name', value: (v) => v.name },
      { header: 'rgds', value: (v) => String(v.count) },
      { header: 'shared', value: (v) => (v.shared ? 'yes' : 'no') },
      { header: 'owner', value: (v) => v.owner },
      { header: 'categories', value: (v) => list(v.filter.categories) },
      { header: 'tags', value: (v) => list(v.filter.tags) },
    ],
    items,
    tableOptions(app.io),
  );

export function registerView(program: Command, app: App): void {
  const view = program.command('view').description('saved catalog views (Enterprise)');

  withOutput(view.command('list').description('shared views and your own')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const items = await client.views.list();
    print(app.io, formatOf(opts), { items, totalCount: items.length }, () => (items.length ? viewTable(app, items) : 'No views.\n'));
  });

  withOutput(view.command('get').description('a view and the RGDs it selects').argument('<slug>', 'view slug')).action(async (slug: string, opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const detail = await client.views.get(slug, { pageSize: 500 });
    print(app.io, formatOf(opts), detail, () => `${viewTable(app, [detail])}\n${detail.rgds.items.length ? rgdTable(app, detail.rgds.items) : 'No RGDs match.\n'}`);
  });

  view
    .command('create')
    .description('save a view (shared ones: Server Admin)')
    .argument('<slug>', 'DNS label')
    .requiredOption('--name <name>', 'display name')
    .option('--description <text>', 'what it is for')
    .option('--icon <icon>', 'icon name')
    .option('--shared', 'visible to everybody')
    .option('--category <c>', 'include this category (repeatable)', collect)
    .option('--tag <t>', 'require this tag (repeatable)', collect)
    .option('--project <p>', 'include RGDs of this project (repeatable)', collect)
    .option('--search <text>', 'name, title or description contains')
    .option('--extends-kind <kind>', 'only RGDs extending this kind')
    .action(async (slug: string, opts: ViewOptions, cmd: Command) => {
      const { client } = await app.session(cmd);
      const created = await client.views.create({
        slug,
        name: opts.name!,
        shared: opts.shared === true,
        filter: filterOf(opts),
        ...(opts.description !== undefined && { description: opts.description }),
        ...(opts.icon !== undefined && { icon: opts.icon }),
      });
      app.io.out(`view "${created.slug}" saved (${created.count} RGDs)\n`);
    });

  view
    .command('delete')
    .description('delete a view (your own, or a shared one as Server Admin)')
    .argument('<slug>', 'view slug')
    .action(async (slug: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await client.views.delete(slug);
      app.io.out(`view "${slug}" deleted\n`);
    });
}
