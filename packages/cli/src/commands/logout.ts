import { PorticoApiError } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { saveConfig, upsertContext } from '../config.js';

export function registerLogout(program: Command, app: App): void {
  program
    .command('logout')
    .description('revoke the session token and forget it')
    .action(async (_opts: unknown, cmd: Command) => {
      const session = await app.session(cmd, { allowExpired: true });
      try {
        await session.client.auth.logout();
      } catch (e) {
        // An expired or revoked token is as logged out as it gets; anything else is worth reporting.
        if (!(e instanceof PorticoApiError && e.status === 401)) throw e;
      }
      if (session.context) {
        const forgotten = { ...session.context, token: '', expiresAt: '' };
        await saveConfig(session.configPath, upsertContext(session.config, forgotten));
        app.io.out(`Logged out of ${session.server} (context "${session.context.name}")\n`);
      } else app.io.out(`Logged out of ${session.server}\n`);
    });
}
