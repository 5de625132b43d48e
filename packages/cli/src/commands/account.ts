import type { Command } from 'commander';
import type { App } from '../app.js';
import { print } from '../output/render.js';
import { renderDetails } from '../output/table.js';
import { registerAccountManagement } from './account-manage.js';
import { formatOf, list, tableOptions, withOutput } from './shared.js';

/** The API gives token times in Unix seconds (as consoles in the field read them); people read RFC 3339. */
const fromUnixSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();

export function registerAccount(program: Command, app: App): void {
  const account = program.command('account').description('who you are signed in as, your password, local accounts');

  withOutput(account.command('info').description('your identity, groups, roles and session')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const info = await client.account.info();
    print(app.io, formatOf(opts), info, () =>
      renderDetails(
        [
          ['User', info.userID],
          ['Email', info.email || '-'],
          ['Display name', info.displayName || '-'],
          ['Groups', list(info.groups)],
          ['Server admin', info.serverAdmin ? 'yes' : 'no'],
          ['Global roles', list(info.casbinRoles)],
          ['Projects', list(info.projects)],
          ['Roles', list(Object.entries(info.roles).map(([p, r]) => `${p}=${r}`))],
          ['Issuer', info.issuer],
          ['Token issued', fromUnixSeconds(info.tokenIssuedAt)],
          ['Token expires', fromUnixSeconds(info.tokenExpiresAt)],
        ],
        tableOptions(app.io),
      ),
    );
  });

  registerAccountManagement(account, app);
}
