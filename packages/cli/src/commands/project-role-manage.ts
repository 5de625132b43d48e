import type { Project } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { changeProject, normalizePolicy } from '../project-update.js';
import { collect } from './shared.js';

type Role = Project['roles'][number];

const roleOf = (p: Project, role: string): Role => {
  const found = p.roles.find((r) => r.name === role);
  if (!found) throw new CliError(`project "${p.name}" has no role "${role}" (see portico project get ${p.name})`, ExitCode.no);
  return found;
};

/** The project's roles with `role` replaced by what `change` makes of it. */
const withRole = (p: Project, role: string, change: (r: Role) => Role) => ({
  roles: p.roles.map((r) => (r.name === roleOf(p, role).name ? change(r) : r)),
});

/** Defining roles and their policies (binding people to them is in project-role.ts). */
export function registerProjectRoleManagement(role: Command, app: App): void {
  role
    .command('create')
    .description('define a role in a project')
    .argument('<project>', 'project name')
    .argument('<role>', 'role name (a DNS label)')
    .option('--description <text>', 'what the role is for')
    .option('--policy <policy>', 'a policy "<object>, <action>, <effect>", e.g. "instances/*, get, allow"; repeatable', collect)
    .action(async (project: string, name: string, opts: { description?: string; policy?: string[] }, cmd: Command) => {
      const { client } = await app.session(cmd);
      await changeProject(client, project, (p) => {
        if (p.roles.some((r) => r.name === name)) throw usageError(`project "${project}" already has a role "${name}"`);
        const created: Role = { name, description: opts.description, policies: (opts.policy ?? []).map(normalizePolicy), users: [], groups: [] };
        return { roles: [...p.roles, created] };
      });
      app.io.out(`role "${name}" created in project "${project}"\n`);
    });

  role
    .command('delete')
    .description('remove a role and its bindings from a project')
    .argument('<project>', 'project name')
    .argument('<role>', 'role name')
    .action(async (project: string, name: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await changeProject(client, project, (p) => ({ roles: p.roles.filter((r) => r.name !== roleOf(p, name).name) }));
      app.io.out(`role "${name}" deleted from project "${project}"\n`);
    });

  role
    .command('add-policy')
    .description('allow (or deny) a role something more')
    .argument('<project>', 'project name')
    .argument('<role>', 'role name')
    .argument('<policy>', '"<object>, <action>, <effect>", e.g. "instances/*, delete, allow"')
    .action(async (project: string, name: string, policy: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      const wanted = normalizePolicy(policy);
      await changeProject(client, project, (p) =>
        withRole(p, name, (r) => ({ ...r, policies: r.policies.map(normalizePolicy).includes(wanted) ? r.policies : [...r.policies, wanted] })),
      );
      app.io.out(`policy "${wanted}" added to role "${name}" in project "${project}"\n`);
    });

  role
    .command('remove-policy')
    .description('take a policy away from a role')
    .argument('<project>', 'project name')
    .argument('<role>', 'role name')
    .argument('<policy>', 'the policy as portico project get shows it (spacing does not matter)')
    .action(async (project: string, name: string, policy: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      const unwanted = normalizePolicy(policy);
      await changeProject(client, project, (p) =>
        withRole(p, name, (r) => {
          if (!r.policies.some((x) => normalizePolicy(x) === unwanted)) throw new CliError(`role "${name}" has no policy "${unwanted}"`, ExitCode.no);
          return { ...r, policies: r.policies.filter((x) => normalizePolicy(x) !== unwanted) };
        }),
      );
      app.io.out(`policy "${unwanted}" removed from role "${name}" in project "${project}"\n`);
    });
}
