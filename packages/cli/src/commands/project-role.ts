import type { Binding } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { errorLine, exitCodeFor, CliError, usageError } from '../exit-codes.js';
import { print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { askText, need } from '../prompts.js';
import { registerProjectRoleManagement } from './project-role-manage.js';
import { acrossProjects, formatOf, needProject, needRole, refuseProjectWithAll, tableOptions, withAllProjects, withOutput } from './shared.js';

interface SubjectOptions {
  user?: string;
  group?: string;
}

/** Exactly one of --user / --group; on a terminal with neither, asks for a user. */
async function subjectOf(app: App, opts: SubjectOptions): Promise<{ type: 'user' | 'group'; name: string }> {
  if (opts.user && opts.group) throw usageError('pass either --user or --group, not both');
  if (opts.group) return { type: 'group', name: opts.group };
  return { type: 'user', name: await need(app.io, opts.user, '--user or --group', () => askText('User')) };
}

export function registerProjectRole(project: Command, app: App): void {
  const role = project.command('role').description('who holds which role in a project');

  withAllProjects(withOutput(role.command('bindings').description('every user and group binding of a project').argument('[project]', 'project name')), false).action(
    async (name: string | undefined, opts: { output?: string; allProjects?: boolean }, cmd: Command) => {
      refuseProjectWithAll(opts.allProjects, name);
      const { client } = await app.session(cmd);
      const all = opts.allProjects === true;
      // -o json: one project's answer as the server gives it, or with -A every project's, in a list.
      let data: unknown;
      let bindings: Binding[];
      let empty: string;
      if (all) {
        const found = await acrossProjects(client, (p) => client.projects.roleBindings(p.name));
        data = { items: found.map(({ value }) => value) };
        bindings = found.flatMap(({ value }) => value.bindings.map((b) => ({ project: value.project, ...b })));
        empty = 'No bindings in any project you may see.\n';
      } else {
        const res = await client.projects.roleBindings(await needProject(app.io, client, name, 'PROJECT argument'));
        data = res;
        bindings = res.bindings.map((b) => ({ project: res.project, ...b }));
        empty = `No bindings in project "${res.project}".\n`;
      }
      print(app.io, formatOf(opts), data, () =>
        bindings.length
          ? renderTable<Binding>(
              [
                ...(all ? [{ header: 'project', value: (b: Binding) => b.project }] : []),
                { header: 'role', value: (b) => b.role },
                { header: 'type', value: (b) => b.type },
                { header: 'subject', value: (b) => b.subject },
              ],
              bindings,
              tableOptions(app.io),
            )
          : empty,
      );
    },
  );

  role
    .command('bind')
    .description('give a user or group a role')
    .argument('[project]', 'project name')
    .argument('[role]', 'role name')
    .option('--user <user>', 'user to bind')
    .option('--group <group>', 'identity-provider group to bind')
    .action(async (projectArg: string | undefined, roleArg: string | undefined, opts: SubjectOptions, cmd: Command) => {
      const { client } = await app.session(cmd);
      const p = await needProject(app.io, client, projectArg, 'PROJECT argument');
      const r = await needRole(app.io, client, p, roleArg);
      const subject = await subjectOf(app, opts);
      if (subject.type === 'user') await client.projects.bindUser(p, r, subject.name);
      else await client.projects.bindGroup(p, r, subject.name);
      app.io.out(`${subject.type} "${subject.name}" bound to role "${r}" in project "${p}"\n`);
    });

  role
    .command('unbind')
    .description('take a role away from a user or group')
    .argument('[project]', 'project name')
    .argument('[role]', 'role name')
    .option('--user <user>', 'user to unbind')
    .option('--group <group>', 'identity-provider group to unbind')
    .action(async (projectArg: string | undefined, roleArg: string | undefined, opts: SubjectOptions, cmd: Command) => {
      const { client } = await app.session(cmd);
      const p = await needProject(app.io, client, projectArg, 'PROJECT argument');
      const r = await needRole(app.io, client, p, roleArg);
      const subject = await subjectOf(app, opts);
      if (subject.type === 'user') await client.projects.unbindUser(p, r, subject.name);
      else await client.projects.unbindGroup(p, r, subject.name);
      app.io.out(`${subject.type} "${subject.name}" unbound from role "${r}" in project "${p}"\n`);
    });

  role
    .command('change')
    .description("move a user from one role to another (unbind the old, then bind the new)")
    .argument('[project]', 'project name')
    .requiredOption('--user <user>', 'user whose role changes')
    .requiredOption('--from <role>', 'the role the user holds now')
    .requiredOption('--to <role>', 'the role the user gets')
    .action(async (projectArg: string | undefined, opts: { user: string; from: string; to: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const p = await needProject(app.io, client, projectArg, 'PROJECT argument');
      if (opts.from === opts.to) throw usageError('--from and --to name the same role');
      // The contract defines a role change as remove + add, in that order.
      await client.projects.unbindUser(p, opts.from, opts.user);
      try {
        await client.projects.bindUser(p, opts.to, opts.user);
      } catch (e) {
        const reason = errorLine(e).replace(/^error: /, '');
        throw new CliError(
          `binding "${opts.user}" to role "${opts.to}" failed: ${reason}; the old binding to role "${opts.from}" WAS removed — ` +
            `restore it with: portico project role bind ${p} ${opts.from} --user ${opts.user}`,
          exitCodeFor(e),
        );
      }
      app.io.out(`user "${opts.user}" moved from role "${opts.from}" to "${opts.to}" in project "${p}"\n`);
    });

  registerProjectRoleManagement(role, app);
}
