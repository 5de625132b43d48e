import type { Command } from 'commander';
import type { App } from '../app.js';
import { configPath, findContext, isExpired, loadConfig, saveConfig } from '../config.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

export function registerContext(program: Command, app: App): void {
  const context = program.command('context').description('saved servers and sessions');

  withOutput(context.command('list').description('list contexts (tokens are never printed)')).action(async (opts: { output?: string }) => {
    const config = await loadConfig(configPath(app.io.env));
    const rows = config.contexts.map((c) => ({
      name: c.name,
      server: c.server,
      user: c.user,
      expiresAt: c.expiresAt,
      current: c.name === config.currentContext,
      loggedIn: c.token !== '' && !isExpired(c),
    }));
    print(app.io, formatOf(opts), { currentContext: config.currentContext, contexts: rows }, () =>
      renderTable(
        [
          { header: 'current', value: (r) => (r.current ? '*' : '') },
          { header: 'name', value: (r) => r.name },
          { header: 'server', value: (r) => r.server },
          { header: 'user', value: (r) => r.user },
          { header: 'session', value: (r) => (r.loggedIn ? `until ${r.expiresAt}` : r.expiresAt ? 'expired' : 'logged out') },
        ],
        rows,
        tableOptions(app.io),
      ),
    );
  });

  context
    .command('use')
    .description('make NAME the current context')
    .argument('<name>', 'context name')
    .action(async (name: string) => {
      const path = configPath(app.io.env);
      const config = await loadConfig(path);
      if (!findContext(config, name)) throw new CliError(`context "${name}" not found (see portico context list)`, ExitCode.no);
      await saveConfig(path, { ...config, currentContext: name });
      app.io.out(`Switched to context "${name}"\n`);
    });
}
