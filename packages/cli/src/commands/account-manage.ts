import { loginLocal } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { saveConfig, upsertContext } from '../config.js';
import { usageError } from '../exit-codes.js';
import { readAll } from '../io.js';
import { age, print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { askPassword, need } from '../prompts.js';
import { collect, formatOf, list, tableOptions, withOutput } from './shared.js';

/** A new password: asked twice on a terminal (a typo would lock the account out), else a usage error. */
async function newPassword(app: App, message: string): Promise<string> {
  return need(app.io, undefined, 'password (pass it with --password-stdin)', async () => {
    for (;;) {
      const first = await askPassword(message);
      if ((await askPassword('Repeat it')) === first) return first;
      app.io.err('The two passwords differ, try again.\n');
    }
  });
}

/** The lines of standard input, for --password-stdin (a trailing newline is not part of the last one). */
const stdinLines = async (app: App) => (await readAll(app.io.stdin)).replace(/\r?\n$/, '').split(/\r?\n/);

/** Local accounts (Server Admin) and your own password; `account info` lives beside it in account.ts. */
export function registerAccountManagement(account: Command, app: App): void {
  withOutput(account.command('list').description('local accounts (Server Admin)')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const res = await client.accounts.list();
    print(app.io, formatOf(opts), res, {
      table: () =>
        res.items.length
          ? renderTable(
              [
                { header: 'username', value: (a) => a.username },
                { header: 'groups', value: (a) => list(a.groups) },
                { header: 'age', value: (a) => age(a.createdAt) },
              ],
              res.items,
              tableOptions(app.io),
            )
          : 'No local accounts.\n',
      names: () => res.items.map((a) => `account/${a.username}`),
    });
  });

  account
    .command('create')
    .description('create a local account (Server Admin); asks for the password twice on a terminal')
    .argument('<username>', 'account name')
    .option('--group <group>', 'a group the account belongs to; repeatable', collect)
    .option('--password-stdin', 'read the password from standard input')
    .action(async (username: string, opts: { group?: string[]; passwordStdin?: boolean }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const password = opts.passwordStdin ? (await stdinLines(app))[0] : await newPassword(app, `Password for ${username}`);
      if (!password) throw usageError('--password-stdin: standard input was empty');
      const created = await client.accounts.create({ username, password, groups: opts.group ?? [] });
      app.io.out(`account "${created.username}" created${created.groups.length ? ` (groups ${created.groups.join(', ')})` : ''}\n`);
    });

  account
    .command('delete')
    .description('delete a local account (Server Admin); its sessions stop working at once')
    .argument('<username>', 'account name')
    .action(async (username: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await client.accounts.delete(username);
      app.io.out(`account "${username}" deleted\n`);
    });

  account
    .command('passwd')
    .description('change your local password; your other sessions end, this context is signed in again')
    .option('--password-stdin', 'read the current password, then the new one, one per line, from standard input')
    .action(async (opts: { passwordStdin?: boolean }, cmd: Command) => {
      const session = await app.session(cmd);
      let current: string;
      let next: string;
      if (opts.passwordStdin) {
        [current, next] = await stdinLines(app);
        if (!current || !next) throw usageError('--password-stdin needs two lines: the current password, then the new one');
      } else {
        current = await need(app.io, undefined, 'passwords (pass them with --password-stdin)', () => askPassword('Current password'));
        next = await newPassword(app, 'New password');
      }
      const { userID } = await session.client.account.info();
      await session.client.accounts.changePassword({ currentPassword: current, newPassword: next });
      // The change revokes every earlier token, this context's too: sign in again so the next command works.
      const fresh = await loginLocal(session.server, userID, next, await app.transport());
      if (session.context) {
        await saveConfig(session.configPath, upsertContext(session.config, { ...session.context, token: fresh.token, expiresAt: fresh.expiresAt }));
      }
      app.io.out(`password changed for "${userID}"; other sessions were signed out${session.context ? `, context "${session.context.name}" was signed in again` : ''}\n`);
    });
}
