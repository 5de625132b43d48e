import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SecretSummary } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { usageError } from '../exit-codes.js';
import { age, print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { acrossProjects, collect, formatOf, needProject, tableOptions, withAllProjects, withOutput } from './shared.js';

interface DataOptions {
  fromLiteral?: string[];
  fromFile?: string[];
}

/** The data of `--from-literal key=value` and `--from-file [key=]path` (kubectl's spelling); a key given twice is an error. */
async function dataOf(opts: DataOptions): Promise<Record<string, string>> {
  const data: Record<string, string> = {};
  const put = (key: string, value: string) => {
    if (key in data) throw usageError(`key "${key}" is given more than once`);
    data[key] = value;
  };
  for (const literal of opts.fromLiteral ?? []) {
    const at = literal.indexOf('=');
    // The message never repeats the argument: it may be a value typed without its key.
    if (at <= 0) throw usageError('--from-literal takes key=value');
    put(literal.slice(0, at), literal.slice(at + 1));
  }
  for (const spec of opts.fromFile ?? []) {
    const at = spec.indexOf('=');
    const [key, path] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [basename(spec), spec];
    put(key, await readFile(path, 'utf8').catch(() => Promise.reject(usageError(`cannot read --from-file "${path}"`))));
  }
  if (Object.keys(data).length === 0) throw usageError('give at least one --from-literal key=value or --from-file [key=]path');
  return data;
}

/** A Secret as `secret list` prints it; with `-A` it names its project. */
type ListedSecret = SecretSummary & { project?: string };

/** `namespace/name` of a secret. */
function refOf(value: string): { namespace: string; name: string } {
  const [namespace, name, ...rest] = value.split('/');
  if (!namespace || !name || rest.length > 0) throw usageError(`name a secret as NAMESPACE/NAME, got "${value}"`);
  return { namespace, name };
}

/** `portico secret list|create|get|delete`: a project's Kubernetes Secrets (values only with --reveal). */
export function registerSecret(program: Command, app: App): void {
  const secret = program.command('secret').description("a project's secrets (values shown only with --reveal)");
  const projectOption = (cmd: Command) => cmd.option('-p, --project <project>', 'project name');

  withAllProjects(withOutput(projectOption(secret.command('list').description('secrets of a project: names and keys, never values')))).action(
    async (opts: { project?: string; allProjects?: boolean; output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const all = opts.allProjects === true;
      let res: { items: ListedSecret[]; totalCount: number };
      let empty: string;
      if (all) {
        // The API lists one project's Secrets per call: every project the caller may see, merged in project order.
        const found = await acrossProjects(client, (p) => client.secrets.list(p.name));
        const items = found.flatMap(({ project, value }) => value.items.map((s) => ({ project: project.name, ...s })));
        res = { items, totalCount: items.length };
        empty = 'No secrets in any project you may see.\n';
      } else {
        const project = await needProject(app.io, client, opts.project, '--project');
        res = await client.secrets.list(project);
        empty = `No secrets in project "${project}".\n`;
      }
      const { items } = res;
      print(app.io, formatOf(opts), res, () =>
        items.length
          ? renderTable<ListedSecret>(
              [
                ...(all ? [{ header: 'project', value: (s: ListedSecret) => s.project ?? '' }] : []),
                { header: 'namespace', value: (s) => s.namespace },
                { header: 'name', value: (s) => s.name },
                { header: 'type', value: (s) => s.type },
                { header: 'keys', value: (s) => s.keys.join(', ') },
                { header: 'age', value: (s) => age(s.createdAt) },
              ],
              items,
              tableOptions(app.io),
            )
          : empty,
      );
    },
  );

  withOutput(
    projectOption(secret.command('create').description('create a secret in one of the project destinations').argument('<namespace/name>', 'where and what'))
      .option('--from-literal <key=value>', 'a key and its value (repeatable)', collect)
      .option('--from-file <[key=]path>', 'a key read from a file, named after the file unless given (repeatable)', collect)
      .option('--type <type>', 'Secret type', 'Opaque'),
  ).action(async (ref: string, opts: DataOptions & { project?: string; type: string; output?: string }, cmd: Command) => {
    const { namespace, name } = refOf(ref);
    const data = await dataOf(opts);
    const { client } = await app.session(cmd);
    const project = await needProject(app.io, client, opts.project, '--project');
    const created = await client.secrets.create(project, { name, namespace, type: opts.type, data });
    print(app.io, formatOf(opts), created, () => `secret "${namespace}/${name}" created in project "${project}" (keys: ${created.keys.join(', ')})\n`);
  });

  withOutput(
    projectOption(secret.command('get').description('one secret: metadata and keys; values with --reveal').argument('<namespace/name>', 'the secret')).option(
      '--reveal',
      'also show the values (needs the reveal permission)',
    ),
  ).action(async (ref: string, opts: { project?: string; reveal?: boolean; output?: string }, cmd: Command) => {
    const { namespace, name } = refOf(ref);
    const { client } = await app.session(cmd);
    const project = await needProject(app.io, client, opts.project, '--project');
    const res = await client.secrets.get(project, namespace, name, { reveal: opts.reveal === true });
    print(app.io, formatOf(opts), res, () => {
      const lines = [`name: ${res.namespace}/${res.name}`, `type: ${res.type}`, `created: ${res.createdAt} by ${res.createdBy || '-'}`, `updated: ${res.updatedAt}`];
      if (res.data) lines.push('data:', ...Object.entries(res.data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `  ${k}: ${v}`));
      else lines.push(`keys: ${res.keys.join(', ') || '-'}`);
      return `${lines.join('\n')}\n`;
    });
  });

  projectOption(secret.command('delete').description('delete a secret').argument('<namespace/name>', 'the secret')).action(
    async (ref: string, opts: { project?: string }, cmd: Command) => {
      const { namespace, name } = refOf(ref);
      const { client } = await app.session(cmd);
      const project = await needProject(app.io, client, opts.project, '--project');
      await client.secrets.delete(project, namespace, name);
      app.io.out(`secret "${namespace}/${name}" deleted from project "${project}"\n`);
    },
  );
}
