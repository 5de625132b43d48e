import type { Project } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { age, print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { registerProjectDelete } from './project-delete.js';
import { registerProjectRole } from './project-role.js';
import { registerProjectToken } from './project-token.js';
import { registerProjectUpdate } from './project-update.js';
import { collect, formatOf, list, needProject, tableOptions, withOutput } from './shared.js';

const projectName = (p: Pick<Project, 'name'>) => `project/${p.name}`;

const destinations = (p: Project) => list(p.destinations.map((d) => d.namespace));

function projectDetails(app: App, p: Project): string {
  const opts = tableOptions(app.io);
  let out = renderDetails(
    [
      ['Name', p.name],
      ['Description', p.description || '-'],
      ['Destinations', destinations(p)],
      ['Created', `${p.createdAt} by ${p.createdBy}`],
      ...(p.updatedAt ? ([['Updated', p.updatedAt]] as [string, string][]) : []),
      ['Resource version', p.resourceVersion],
    ],
    opts,
  );
  out += '\nRoles:\n';
  out += p.roles.length
    ? renderTable(
        [
          { header: 'role', value: (r) => r.name },
          { header: 'users', value: (r) => list(r.users) },
          { header: 'groups', value: (r) => list(r.groups) },
          { header: 'policies', value: (r) => r.policies.join('; ') || '-' },
        ],
        p.roles,
        opts,
      )
    : '  (none)\n';
  return out;
}

export function registerProject(program: Command, app: App): void {
  const project = program.command('project').description('projects, their destinations and members');

  withOutput(project.command('list').description('projects you may see')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const res = await client.projects.list();
    print(app.io, formatOf(opts), res, {
      table: (wide) =>
        res.items.length
          ? renderTable(
              [
                { header: 'name', value: (p) => p.name },
                { header: 'destinations', value: destinations },
                { header: 'roles', value: (p) => list(p.roles.map((r) => r.name)) },
                { header: 'age', value: (p) => age(p.createdAt) },
                { header: 'description', value: (p) => p.description },
                { header: 'created by', value: (p) => p.createdBy, wide: true },
                { header: 'members', value: (p) => String(new Set(p.roles.flatMap((r) => [...r.users, ...r.groups.map((g) => `group:${g}`)])).size), wide: true },
              ],
              res.items,
              tableOptions(app.io, wide),
            )
          : 'No projects found.\n',
      names: () => res.items.map(projectName),
    });
  });

  withOutput(project.command('get').description('one project with its roles').argument('[name]', 'project name')).action(
    async (name: string | undefined, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const p = await client.projects.get(await needProject(app.io, client, name, 'NAME argument'));
      print(app.io, formatOf(opts), p, { table: () => projectDetails(app, p), names: () => [projectName(p)] });
    },
  );

  project
    .command('create')
    .description('create a project')
    .argument('<name>', 'project name (a DNS label)')
    .option('--description <text>', 'what the project is for')
    .option('--destination <namespace>', 'a namespace or pattern (*, prefix*, *suffix) instances may go to; repeatable', collect)
    .action(async (name: string, opts: { description?: string; destination?: string[] }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const created = await client.projects.create({
        name,
        description: opts.description,
        destinations: (opts.destination ?? []).map((namespace) => ({ namespace })),
      });
      app.io.out(`project "${created.name}" created\n`);
    });

  registerProjectDelete(project, app);

  withOutput(project.command('namespaces').description("real namespaces matching the project's destinations").argument('[name]', 'project name')).action(
    async (name: string | undefined, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const res = await client.projects.namespaces(await needProject(app.io, client, name, 'NAME argument'));
      print(app.io, formatOf(opts), res, () =>
        res.namespaces.length
          ? renderTable([{ header: 'namespace', value: (n: string) => n }], res.namespaces, tableOptions(app.io))
          : 'No namespaces match.\n',
      );
    },
  );

  registerProjectUpdate(project, app);
  registerProjectRole(project, app);
  registerProjectToken(project, app);
}
