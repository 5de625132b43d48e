import type { Command } from 'commander';
import type { App } from '../app.js';
import { configPath, findContext, isExpired, loadConfig, removeContext, renameContext, saveConfig, type CliConfig } from '../config.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { print } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

const notFound = (name: string) => new CliError(`context "${name}" not found (see portico context list)`, ExitCode.no);

/** Loads the config, checks that context `name` exists, and saves what `change` makes of it. */
async function changeConfig(app: App, name: string, change: (config: CliConfig) => CliConfig): Promise<void> {
  const path = configPath(app.io.env);
  const config = await loadConfig(path);
  if (!findContext(config, name)) throw notFound(name);
  await saveConfig(path, change(config));
}

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
    print(app.io, formatOf(opts), { currentContext: config.currentContext, contexts: rows }, {
      // Bare names, as `kubectl config get-contexts -o name` prints them: what `context use` takes.
      names: () => rows.map((r) => r.name),
      table: () =>
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
    });
  });

  context
    .command('use')
    .description('make NAME the current context')
    .argument('<name>', 'context name')
    .action(async (name: string) => {
      await changeConfig(app, name, (config) => ({ ...config, currentContext: name }));
      app.io.out(`Switched to context "${name}"\n`);
    });

  context
    .command('delete')
    .description('forget context NAME and its token (the session stays valid until it expires; portico logout revokes it)')
    .argument('<name>', 'context name')
    .action(async (name: string) => {
      let wasCurrent = false;
      await changeConfig(app, name, (config) => {
        wasCurrent = config.currentContext === name;
        return removeContext(config, name);
      });
      app.io.out(`Deleted context "${name}"${wasCurrent ? ' (it was the current context: pick another with portico context use)' : ''}\n`);
    });

  context
    .command('rename')
    .description('rename context OLD to NEW')
    .argument('<old>', 'current name')
    .argument('<new>', 'new name')
    .action(async (from: string, to: string) => {
      if (!to.trim()) throw usageError('the new name is empty');
      await changeConfig(app, from, (config) => {
        if (from !== to && findContext(config, to)) throw usageError(`context "${to}" already exists`);
        return renameContext(config, from, to);
      });
      app.io.out(`Renamed context "${from}" to "${to}"\n`);
    });
}
