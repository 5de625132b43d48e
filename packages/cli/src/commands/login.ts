import { loginLocal, loginSso, type PorticoClient } from '@portico/client';
import type { Command } from 'commander';
import { normalizeServer, type App, type GlobalOptions } from '../app.js';
import { openBrowser } from '../browser.js';
import { configPath, contextNameForLogin, currentContext, loadConfig, saveConfig, upsertContext } from '../config.js';
import { usageError } from '../exit-codes.js';
import { readAll } from '../io.js';
import { askPassword, askText, need } from '../prompts.js';

interface LoginOptions {
  username?: string;
  passwordStdin?: boolean;
  sso?: boolean;
  provider?: string;
  context?: string;
}

export function registerLogin(program: Command, app: App): void {
  program
    .command('login')
    .description('sign in and save the session as a context')
    .argument('[server]', "server URL (default: the current context's server)")
    .option('--username <name>', 'local account name')
    .option('--password-stdin', 'read the password from standard input')
    .option('--sso', 'sign in with the identity provider in a browser')
    .option('--provider <name>', 'identity provider (with --sso)')
    .option('--context <name>', 'name of the context to save (default: the server host)')
    .action(async (serverArg: string | undefined, opts: LoginOptions, cmd: Command) => {
      const { io } = app;
      const path = configPath(io.env);
      const config = await loadConfig(path);
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const given = serverArg || globals.server || io.env.PORTICO_SERVER || currentContext(config)?.server;
      const server = normalizeServer(await need(io, given, 'server (portico login SERVER)', () => askText('Portico server URL')));
      if (opts.provider && !opts.sso) throw usageError('--provider needs --sso');
      if (opts.sso && (opts.username || opts.passwordStdin)) throw usageError('--sso does not take --username or --password-stdin');

      const transport = await app.transport();
      let session: Awaited<ReturnType<PorticoClient['auth']['login']>>;
      if (opts.sso) {
        session = await loginSso({
          baseUrl: server,
          provider: opts.provider,
          ...transport,
          openBrowser: (url) => {
            io.err(`Opening the sign-in page in your browser. If it does not open, visit:\n  ${url}\n`);
            openBrowser(url, io.env);
          },
        });
      } else {
        const username = await need(io, opts.username, '--username', () => askText('Username'));
        let password: string;
        if (opts.passwordStdin) {
          password = (await readAll(io.stdin)).replace(/\r?\n$/, '');
          if (!password) throw usageError('--password-stdin: standard input was empty');
        } else {
          password = await need(io, undefined, 'password (pass it with --password-stdin)', () => askPassword('Password'));
        }
        session = await loginLocal(server, username, password, transport);
      }

      // Known by e-mail, except local accounts whose only address is the contract's `<username>@local`.
      const { email, id } = session.user;
      const user = email && email !== `${id}@local` ? email : id;
      const name = opts.context || contextNameForLogin(config, server, user);
      const updated = upsertContext(config, { name, server, token: session.token, user, expiresAt: session.expiresAt });
      await saveConfig(path, { ...updated, currentContext: name });
      io.out(`Logged in to ${server} as ${user} (context "${name}", session until ${session.expiresAt})\n`);
    });
}
