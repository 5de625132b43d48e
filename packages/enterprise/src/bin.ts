#!/usr/bin/env node
import { createLogger, createPortico, loadConfig, type Logger } from '@portico/core';
import { attachWebSocket, createServer, pluginEventStreams } from '@portico/server';
import { loadEnterpriseConfig } from './config.js';
import { createEnterpriseModules } from './modules.js';
import { createEnterprise } from './enterprise.js';
import { enterprisePlugin } from './plugin.js';

/** Bad configuration stops start-up with one line naming the variable (contract §10, §12). */
function configOrExit() {
  try {
    return { config: loadConfig(process.env), enterprise: loadEnterpriseConfig(process.env) };
  } catch (error) {
    process.stderr.write(`portico-server-enterprise: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

const displayHost = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host);

async function main(): Promise<void> {
  const { config, enterprise: eeConfig } = configOrExit();
  const logger: Logger = createLogger(config.logLevel);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });

  const portico = await createPortico({ config, logger });
  const ee = await createEnterprise({ portico, config: eeConfig, logger }).catch(async (error: unknown) => {
    await portico.stop().catch(() => {});
    throw error;
  });
  const plugin = enterprisePlugin(ee, createEnterpriseModules(ee, portico, logger));
  const app = createServer(portico, { upgrade: (server) => attachWebSocket(server, portico, { streams: pluginEventStreams([plugin]) }), plugins: [plugin] });
  const address = await app.listen(config.server.host, config.server.port).catch(async (error: unknown) => {
    await plugin.stop?.().catch(() => {});
    await portico.stop().catch(() => {});
    throw error;
  });
  const url = `http://${displayHost(address.address)}:${address.port}`;
  logger.info({ url, profile: config.profile, edition: 'enterprise', schema: eeConfig.schema }, `Portico Enterprise listening on ${url}`);

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await app.close();
      await plugin.stop?.();
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
  process.stderr.write(`portico-server-enterprise: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
