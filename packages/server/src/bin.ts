#!/usr/bin/env node
import { createLogger, createPortico, loadConfig, type Logger, type PorticoConfig } from '@portico/core';
import { createServer, type CreateServerOptions } from './app.js';
import { attachWebSocket } from './ws/index.js';

/** Bad configuration stops start-up with one line naming the variable (contract §10). */
function configOrExit(): PorticoConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`portico-server: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

/** `0.0.0.0` and `::` are not addresses a browser can open. */
const displayHost = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host);

async function main(): Promise<void> {
  const config = configOrExit();
  const logger: Logger = createLogger(config.logLevel);
  // A stray rejection is a bug to log, not a reason to drop every connection; an uncaught exception leaves
  // state unknown, so that one ends the process.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });

  const portico = await createPortico({ config, logger });

  // ─── WebSocket attach ─────────────────────────────────────────────────────────────────────────────────
  // The /ws endpoint plugs in here as `opts.upgrade`: it attaches to the HTTP server and returns
  // `{ close(): Promise<void> }`, which `app.close()` calls during shutdown.
  const upgrade: CreateServerOptions['upgrade'] = (server) => attachWebSocket(server, portico);
  // ──────────────────────────────────────────────────────────────────────────────────────────────────────

  const app = createServer(portico, { upgrade });
  const address = await app.listen(config.server.host, config.server.port).catch(async (error: unknown) => {
    await portico.stop().catch(() => {});
    throw error;
  });
  const url = `http://${displayHost(address.address)}:${address.port}`;
  logger.info({ url, profile: config.profile }, `Portico listening on ${url}`);
  if (config.swaggerUi) logger.info({ url: `http://localhost:${address.port}/swagger/` }, `API explorer at http://localhost:${address.port}/swagger/`);

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      // Stops accepting, waits for in-flight requests (up to shutdownTimeoutMs), closes WebSockets.
      await app.close();
      await portico.stop();
      logger.info('stopped');
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
    }
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void shutdown(s));
  process.once('SIGINT', (s) => void shutdown(s));
}

main().catch((error: unknown) => {
  process.stderr.write(`portico-server: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
