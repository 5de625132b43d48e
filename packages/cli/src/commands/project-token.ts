import type { ProjectTokenInfo } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { age, print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { acrossProjects, formatOf, needProject, needRole, refuseProjectWithAll, tableOptions, withAllProjects, withOutput } from './shared.js';

const ago = (timestamp: string | undefined) => (timestamp ? `${age(timestamp)} ago` : '-');
const expiry = (timestamp: string | undefined) => timestamp ?? 'never';

/** A token as `token list` prints it; with `-A` it names its project and role. */
type ListedToken = ProjectTokenInfo & { project?: string; role?: string };

/**
 * `portico project token create|list|delete` (§14): tokens acting as one role of one project, for CI pipelines.
 * `create` prints the token alone on stdout, so `TOKEN=$(portico project token create …)` captures it; it is shown
 * this once and never again.
 */
export function registerProjectToken(project: Command, app: App): void {
  const token = project.command('token').description('tokens acting as one role of a project (for CI pipelines)');

  withOutput(
    token
      .command('create')
      .description('issue a token for a role; it is printed once and never shown again')
      .argument('[project]', 'project name')
      .argument('[role]', 'role the token acts as')
      .option('--description <text>', 'what the token is for (shown by token list)')
      .option('--expires-in <duration>', 'lifetime such as 12h or 30d (at most 365d); without it the token does not expire'),
  ).action(async (projectArg: string | undefined, roleArg: string | undefined, opts: { description?: string; expiresIn?: string; output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const p = await needProject(app.io, client, projectArg, 'PROJECT argument');
    const r = await needRole(app.io, client, p, roleArg);
    const created = await client.projects.tokens.create(p, r, {
      ...(opts.description !== undefined && { description: opts.description }),
      ...(opts.expiresIn !== undefined && { expiresIn: opts.expiresIn }),
    });
    print(app.io, formatOf(opts), created, () => {
      app.io.err(`token ${created.id} for role "${r}" of project "${p}", expires ${expiry(created.expiresAt)}; it is shown only now\n`);
      return `${created.token}\n`;
    });
  });

  withAllProjects(
    withOutput(token.command('list').description("a role's tokens (never the tokens themselves)").argument('[project]', 'project name').argument('[role]', 'role name')),
    false,
  ).action(async (projectArg: string | undefined, roleArg: string | undefined, opts: { output?: string; allProjects?: boolean }, cmd: Command) => {
    refuseProjectWithAll(opts.allProjects, projectArg);
    const { client } = await app.session(cmd);
    const all = opts.allProjects === true;
    let items: ListedToken[];
    let empty: string;
    if (all) {
      // Tokens are listed per role: every role of every project the caller may see (those it may not manage are left out).
      const found = await acrossProjects(client, async (p) => {
        const tokens: ListedToken[] = [];
        for (const role of p.roles) {
          const { items: listed } = await client.projects.tokens.list(p.name, role.name);
          tokens.push(...listed.map((t) => ({ project: p.name, role: role.name, ...t })));
        }
        return tokens;
      });
      items = found.flatMap(({ value }) => value);
      empty = 'No tokens in any project you may manage.\n';
    } else {
      const p = await needProject(app.io, client, projectArg, 'PROJECT argument');
      const r = await needRole(app.io, client, p, roleArg);
      items = (await client.projects.tokens.list(p, r)).items;
      empty = `No tokens for role "${r}" in project "${p}".\n`;
    }
    print(app.io, formatOf(opts), { items }, {
      table: (wide) =>
        items.length
          ? renderTable<ListedToken>(
              [
                ...(all ? [{ header: 'project', value: (t: ListedToken) => t.project ?? '' }, { header: 'role', value: (t: ListedToken) => t.role ?? '' }] : []),
                { header: 'id', value: (t) => t.id },
                { header: 'description', value: (t) => t.description || '-' },
                { header: 'issued', value: (t) => ago(t.issuedAt) },
                { header: 'expires', value: (t) => expiry(t.expiresAt) },
                { header: 'last used', value: (t) => ago(t.lastUsedAt) },
                { header: 'created by', value: (t) => t.createdBy },
              ],
              items,
              tableOptions(app.io, wide),
            )
          : empty,
      names: () => items.map((t) => `token/${t.id}`),
    });
  });

  token
    .command('delete')
    .description('revoke a token: refused at once on every replica')
    .argument('<project>', 'project name')
    .argument('<role>', 'role name')
    .argument('<id>', 'token id (see token list)')
    .action(async (p: string, r: string, id: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await client.projects.tokens.delete(p, r, id);
      app.io.out(`token ${id} of role "${r}" in project "${p}" revoked\n`);
    });
}
