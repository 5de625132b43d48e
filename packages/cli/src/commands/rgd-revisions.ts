import type { DiffField, GraphRevision, RevisionDiff } from '@portico/api';
import { InvalidArgumentError, type Command } from 'commander';
import type { App } from '../app.js';
import { age, print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

const revisionNumber = (value: string): number => {
  if (!/^[0-9]{1,9}$/.test(value)) throw new InvalidArgumentError('a revision number (1, 2, …)');
  return Number(value);
};

function revisionsTable(app: App, items: GraphRevision[]): string {
  if (!items.length) return 'No revisions.\n';
  return renderTable(
    [
      { header: 'revision', value: (r) => String(r.revisionNumber) },
      { header: 'age', value: (r) => age(r.createdAt) },
      { header: 'created', value: (r) => r.createdAt },
      { header: 'by', value: (r) => r.createdBy ?? '' },
      { header: 'hash', value: (r) => r.contentHash.slice(0, 12) },
      { header: 'conditions', value: (r) => r.conditions.map((c) => `${c.type}=${c.status}`).join(', ') },
    ],
    items,
    tableOptions(app.io),
  );
}

const shown = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

function diffTable(app: App, diff: RevisionDiff): string {
  const head = `${diff.rgdName}: revision ${diff.rev1} → ${diff.rev2}`;
  if (diff.identical) return `${head}: identical\n`;
  const rows: (DiffField & { change: string })[] = [
    ...diff.added.map((f) => ({ ...f, change: 'added' })),
    ...diff.removed.map((f) => ({ ...f, change: 'removed' })),
    ...diff.modified.map((f) => ({ ...f, change: 'modified' })),
  ].sort((a, b) => a.path.localeCompare(b.path, 'en'));
  return `${head}\n${renderTable(
    [
      { header: 'change', value: (r) => r.change },
      { header: 'path', value: (r) => r.path },
      { header: 'old', value: (r) => shown(r.oldValue) },
      { header: 'new', value: (r) => shown(r.newValue) },
    ],
    rows,
    tableOptions(app.io),
  )}`;
}

/** `portico rgd revisions|revision|diff`: the recorded revisions of an RGD's spec and what changed between two. */
export function registerRgdRevisions(rgd: Command, app: App): void {
  withOutput(rgd.command('revisions').description('the recorded revisions of an RGD\'s spec, newest first').argument('<name>', 'RGD name')).action(
    async (name: string, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const res = await client.rgds.revisions(name);
      print(app.io, formatOf(opts), res, () => revisionsTable(app, res.items));
    },
  );

  withOutput(
    rgd.command('revision').description('one revision of an RGD with its spec as it was (-o yaml shows the snapshot)').argument('<name>', 'RGD name').argument('<n>', 'revision number', revisionNumber),
  ).action(async (name: string, n: number, opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const res = await client.rgds.revision(name, n);
    print(app.io, formatOf(opts), res, () => revisionsTable(app, [res]));
  });

  withOutput(
    rgd
      .command('diff')
      .description('what changed in an RGD\'s spec between two revisions (maps key by key, lists as a whole)')
      .argument('<name>', 'RGD name')
      .argument('<a>', 'a revision number', revisionNumber)
      .argument('<b>', 'another revision number', revisionNumber),
  ).action(async (name: string, a: number, b: number, opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const diff = await client.rgds.diff(name, a, b);
    print(app.io, formatOf(opts), diff, () => diffTable(app, diff));
  });
}
