import type { Category } from '@portico/api/enterprise';
import { Option, type Command } from 'commander';
import type { App } from '../app.js';
import { usageError } from '../exit-codes.js';
import { print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

interface CategoryFields {
  name?: string;
  icon?: string;
  iconType?: 'lucide' | 'svg';
  description?: string;
  weight?: string;
}

const weightOf = (text: string | undefined) => {
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) throw usageError(`--weight must be a whole number, got "${text}"`);
  return Number(text);
};

const fieldsOf = (opts: CategoryFields) => ({
  ...(opts.name !== undefined && { name: opts.name }),
  ...(opts.icon !== undefined && { icon: opts.icon }),
  ...(opts.iconType !== undefined && { iconType: opts.iconType }),
  ...(opts.description !== undefined && { description: opts.description }),
  ...(opts.weight !== undefined && { weight: weightOf(opts.weight) }),
});

const withFields = (cmd: Command) =>
  cmd
    .option('--icon <icon>', 'a lucide icon name, or SVG markup with --icon-type svg')
    .addOption(new Option('--icon-type <type>', 'icon kind').choices(['lucide', 'svg']))
    .option('--description <text>', 'what belongs in it')
    .option('--weight <n>', 'sort weight, lower first');

const categoryTable = (app: App, items: Category[]) =>
  renderTable(
    [
      { header: 'slug', value: (c) => c.slug },
      { header: 'name', value: (c) => c.name },
      { header: 'rgds', value: (c) => String(c.count) },
      { header: 'weight', value: (c) => String(c.weight) },
      { header: 'icon', value: (c) => (c.iconType === 'svg' ? '(svg)' : c.icon) },
      { header: 'description', value: (c) => c.description },
    ],
    items,
    tableOptions(app.io),
  );

const categoryDetails = (app: App, c: Category) =>
  renderDetails(
    [
      ['Slug', c.slug],
      ['Name', c.name],
      ['RGDs you may see', String(c.count)],
      ['Weight', String(c.weight)],
      ['Icon', c.iconType === 'svg' ? '(svg)' : c.icon],
      ['Description', c.description || '-'],
    ],
    tableOptions(app.io),
  );

export function registerCategory(program: Command, app: App): void {
  const category = program.command('category').description('catalog categories (Enterprise)');

  withOutput(category.command('list').description('categories with the number of RGDs you may see')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const items = await client.categories.list();
    print(app.io, formatOf(opts), { categories: items }, () => (items.length ? categoryTable(app, items) : 'No categories.\n'));
  });

  withOutput(category.command('get').description('one category').argument('<slug>', 'category slug')).action(async (slug: string, opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const found = await client.categories.get(slug);
    print(app.io, formatOf(opts), found, () => categoryDetails(app, found));
  });

  withFields(category.command('create').description('create a category (Server Admin)').argument('<slug>', 'DNS label').requiredOption('--name <name>', 'display name')).action(
    async (slug: string, opts: CategoryFields, cmd: Command) => {
      const { client } = await app.session(cmd);
      const created = await client.categories.create({ slug, name: opts.name!, ...fieldsOf(opts) });
      app.io.out(`category "${created.slug}" created\n`);
    },
  );

  withFields(category.command('update').description('change a category (Server Admin)').argument('<slug>', 'category slug').option('--name <name>', 'display name')).action(
    async (slug: string, opts: CategoryFields, cmd: Command) => {
      const fields = fieldsOf(opts);
      if (Object.keys(fields).length === 0) throw usageError('nothing to change: give --name, --icon, --icon-type, --description or --weight');
      const { client } = await app.session(cmd);
      await client.categories.update(slug, fields);
      app.io.out(`category "${slug}" updated\n`);
    },
  );

  category
    .command('delete')
    .description('delete a category (Server Admin); its RGDs keep their annotation')
    .argument('<slug>', 'category slug')
    .action(async (slug: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await client.categories.delete(slug);
      app.io.out(`category "${slug}" deleted\n`);
    });
}
