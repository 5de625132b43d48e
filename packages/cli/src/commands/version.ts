import type { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import type { App } from '../app.js';
import { print } from '../output/render.js';
import { renderDetails } from '../output/table.js';
import { formatOf, tableOptions, withOutput } from './shared.js';

export function registerVersion(program: Command, app: App): void {
  withOutput(program.command('version').description('client and server versions'))
    .option('--client', 'the client version only (no server needed)')
    .action(async (opts: { output?: string; client?: boolean }, cmd: Command) => {
      const format = formatOf(opts);
      const client = { version: pkg.version };
      if (opts.client) return print(app.io, format, { client }, () => renderDetails([['Client', client.version]], tableOptions(app.io)));
      // As kubectl does: the client's version first, so it shows even when the server cannot be asked.
      if (format === 'table' || format === 'wide') app.io.out(renderDetails([['Client', client.version]], tableOptions(app.io)));
      const session = await app.session(cmd);
      const server = { ...(await session.client.health.version()), url: session.server };
      print(app.io, format, { client, server }, () => renderDetails([['Server', `${server.version} (${server.url})`]], tableOptions(app.io)));
    });
}
