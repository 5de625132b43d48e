#!/usr/bin/env node
import { runServerBinary } from '@portico/server';
import { loadEnterpriseConfig } from './config.js';
import { enterpriseCorePlugin } from './core-plugin.js';
import { createEnterpriseModules } from './modules.js';
import { createEnterprise, openEnterpriseDatabase } from './enterprise.js';
import type { Database } from './db/health.js';
import { enterprisePlugin } from './plugin.js';

// Opened before Portico starts, so the audit trail's hook is in place before the first operation can run.
let database: Database | undefined;

runServerBinary({
  name: 'portico-server-enterprise',
  edition: 'Enterprise',
  loadConfig: loadEnterpriseConfig,
  async corePlugins(_config, logger, config) {
    database = openEnterpriseDatabase(config, logger);
    return [enterpriseCorePlugin({ pool: database.pool, logger })];
  },
  async plugins(portico, logger, config) {
    const ee = await createEnterprise({ portico, config, logger, database });
    return [enterprisePlugin(ee, createEnterpriseModules(ee, portico, logger))];
  },
  describe: (config) => ({ edition: 'enterprise', schema: config.schema }),
});
