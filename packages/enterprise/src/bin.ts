#!/usr/bin/env node
import { runServerBinary } from '@portico/server';
import { loadEnterpriseConfig } from './config.js';
import { createEnterpriseModules } from './modules.js';
import { createEnterprise } from './enterprise.js';
import { enterprisePlugin } from './plugin.js';

runServerBinary({
  name: 'portico-server-enterprise',
  edition: 'Enterprise',
  loadConfig: loadEnterpriseConfig,
  async plugins(portico, logger, config) {
    const ee = await createEnterprise({ portico, config, logger });
    return [enterprisePlugin(ee, createEnterpriseModules(ee, portico, logger))];
  },
  describe: (config) => ({ edition: 'enterprise', schema: config.schema }),
});
