export { createPool, assertSchemaName, type DatabaseConfig, type Pool } from './db/pool.js';
export { migrate, migrationsDir, type MigrateOptions } from './db/migrate.js';
export { loadEnterpriseConfig, type EnterpriseConfig } from './config.js';
export { createEnterprise, openEnterpriseDatabase, type Enterprise, type CreateEnterpriseOptions } from './enterprise.js';
export { enterpriseCorePlugin, enterpriseRbacResources } from './core-plugin.js';
export { enterprisePlugin, type EnterpriseModule } from './plugin.js';
export { createEnterpriseModules } from './modules.js';
