import { createPortico, loadConfig, type Logger, type Portico, type PorticoConfig, type PorticoPlugin } from '@portico/core';
import { runAdminCommand } from './admin-command.js';
import { createServer, type CreateServerOptions } from './app.js';
import { consoleLogger } from './console/logger.js';
import { passwordBox } from './console/password-box.js';
import { createServerMetrics, listenForMetrics, type MetricsListener } from './metrics/index.js';
import type { ServerPlugin } from './plugin.js';
import { attachWebSocket } from './ws/index.js';
import { listenFailure, portVariableRefusal } from './listen-errors.js';

/** What an edition's binary adds to the one start-up and shutdown every Portico server shares. */
export interface ServerBinary<X = undefined> {
  /** The command's name, at the start of its error lines (`portico-server: …`). */
  name: string;
  /** The edition's name in the listening line (`Portico Enterprise listening on …`); none for OSS. */
  edition?: string;
  /** The edition's own configuration, read beside the core's: a bad value stops start-up the same way. */
  loadConfig?(env: NodeJS.ProcessEnv): X;
  /** What the edition gives `createPortico` before anything starts: RBAC rows, operations, operation hooks. */
  corePlugins?(config: PorticoConfig, logger: Logger, extra: X): Promise<PorticoPlugin[]>;
  /** The edition's plugins, built once Portico has started; each one's `stop` runs after the HTTP server closed. */
  plugins?(portico: Portico, logger: Logger, config: X): Promise<ServerPlugin[]>;
  /** Extra fields for the listening log line. */
  describe?(config: X): Record<string, unknown>;
}

/** `0.0.0.0` and `::` are not addresses a browser can open. */
const displayHost = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host);

const urlOf = (host: string, port: number) => `http://${displayHost(host)}:${port}`;

/**
 * The server binaries' main: configuration, the admin subcommand, Portico, plugins, HTTP + WebSocket, the
 * metrics listener, the generated-password box, and a graceful shutdown on SIGTERM/SIGINT. One place, so the
 * OSS and Enterprise binaries cannot drift apart (same logs, same metrics, same shutdown order).
 */
export function runServerBinary<X = undefined>(binary: ServerBinary<X>): void {
  main(binary).catch((error: unknown) => {
    process.stderr.write(`${binary.name}: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

/** Bad configuration stops start-up with one line naming the variable. */
function configOrExit<X>(binary: ServerBinary<X>): { config: PorticoConfig; extra: X } {
  const refusal = portVariableRefusal(process.env);
  if (refusal) {
    process.stderr.write(`${binary.name}: ${refusal}\n`);
    process.exit(1);
  }
  try {
    return { config: loadConfig(process.env), extra: binary.loadConfig?.(process.env) as X };
  } catch (error) {
    process.stderr.write(`${binary.name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

async function main<X>(binary: ServerBinary<X>): Promise<void> {
  const { config, extra } = configOrExit(binary);
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
  const corePlugins = (await binary.corePlugins?.(config, logger, extra)) ?? [];
  const portico = await createPortico({ config, logger, showGeneratedPassword, plugins: corePlugins });
  const plugins = await (binary.plugins?.(portico, logger, extra) ?? Promise.resolve([])).catch(async (error: unknown) => {
    await portico.stop().catch(() => {});
    throw error;
  });
  const stopPlugins = async () => {
    for (const plugin of plugins) await plugin.stop?.();
  };

  const metrics = createServerMetrics(portico);
  const upgrade: CreateServerOptions['upgrade'] = (server) => {
    const sockets = attachWebSocket(server, portico, { onEventSent: metrics.eventSent });
    metrics.countConnectionsWith(sockets.connectionCount);
    return sockets;
  };
  const app = createServer(portico, { upgrade, metrics, plugins });
  const address = await app.listen(config.server.host, config.server.port).catch(async (error: unknown) => {
    await stopPlugins().catch(() => {});
    await portico.stop().catch(() => {});
    // A generated password not shown yet stays in the data dir and is shown by the next start that listens.
    const failure = listenFailure(error, config.server.host, config.server.port);
    throw failure ? new Error(failure) : error;
  });
  const url = urlOf(address.address, address.port);
  const product = binary.edition ? `Portico ${binary.edition}` : 'Portico';
  logger.info({ url, profile: config.profile, ...binary.describe?.(extra) }, `${product} listening on ${url}`);
  let metricsListener: MetricsListener | undefined;
  if (config.metrics) {
    const { host, port } = config.metrics;
    metricsListener = await listenForMetrics(metrics, host, port).catch(async (error: unknown) => {
      await app.close().catch(() => {});
      await stopPlugins().catch(() => {});
      await portico.stop().catch(() => {});
      const failure = listenFailure(error, host, port, 'METRICS_ADDRESS');
      throw failure ? new Error(failure) : error;
    });
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
      await stopPlugins();
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
