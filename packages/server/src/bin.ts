#!/usr/bin/env node
import { createPortico, loadConfig, type Logger, type PorticoConfig } from '@portico/core';
import { runAdminCommand } from './admin-command.js';
import { createServer, type CreateServerOptions } from './app.js';
import { consoleLogger } from './console/logger.js';
import { passwordBox } from './console/password-box.js';
import { createServerMetrics, listenForMetrics, type MetricsListener } from './metrics/index.js';
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

const urlOf = (host: string, port: number) => `http://${displayHost(host)}:${port}`;

async function main(): Promise<void> {
  const config = configOrExit();
  const logger: Logger = consoleLogger(config);
  if (process.argv[2] === 'admin') {
    process.exit(await runAdminCommand(process.argv.slice(3), config, logger, urlOf(config.server.host, config.server.port)));
  }
  // A stray rejection is a bug to log, not a reason to drop every connection; an uncaught exception leaves
  // state unknown, so that one ends the process.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });

  // In development a generated admin password is shown in a box once the server listens, not in a log line.
  let generatedPassword: string | undefined;
  const showGeneratedPassword = config.profile === 'development' ? (password: string) => void (generatedPassword = password) : undefined;
  const portico = await createPortico({ config, logger, showGeneratedPassword });

  // ─── WebSocket attach ─────────────────────────────────────────────────────────────────────────────────
  // The /ws endpoint plugs in here as `opts.upgrade`: it attaches to the HTTP server and returns
  // `{ close(): Promise<void> }`, which `app.close()` calls during shutdown.
  const metrics = createServerMetrics(portico);
  const upgrade: CreateServerOptions['upgrade'] = (server) => {
    const sockets = attachWebSocket(server, portico, { onEventSent: metrics.eventSent });
    metrics.countConnectionsWith(sockets.connectionCount);
    return sockets;
  };
  // ──────────────────────────────────────────────────────────────────────────────────────────────────────

  const app = createServer(portico, { upgrade, metrics });
  const address = await app.listen(config.server.host, config.server.port).catch(async (error: unknown) => {
    await portico.stop().catch(() => {});
    throw error;
  });
  const url = urlOf(address.address, address.port);
  logger.info({ url, profile: config.profile }, `Portico listening on ${url}`);
  let metricsListener: MetricsListener | undefined;
  if (config.metrics) {
    metricsListener = await listenForMetrics(metrics, config.metrics.host, config.metrics.port);
    logger.info({ port: metricsListener.address.port }, `Prometheus metrics at http://${displayHost(metricsListener.address.address)}:${metricsListener.address.port}/metrics`);
  }
  if (config.swaggerUi) logger.info({ url: `http://localhost:${address.port}/swagger/` }, `API explorer at http://localhost:${address.port}/swagger/`);

  if (generatedPassword) process.stdout.write(passwordBox(generatedPassword, url));

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      // Stops accepting, waits for in-flight requests (up to shutdownTimeoutMs), closes WebSockets.
      await app.close();
      await metricsListener?.close();
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
