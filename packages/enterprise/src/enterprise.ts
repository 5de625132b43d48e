import { readFile } from 'node:fs/promises';
import { createInformer, type Actor, type Logger, type Portico } from '@portico/core';
import type { EnterpriseConfig } from './config.js';
import { openDatabase, type Database } from './db/health.js';
import { createPool } from './db/pool.js';
import { categoryResource } from './categories/resource.js';
import { createCategories, type CategoriesService } from './categories/service.js';
import { loadLicenseKeys } from './license/keys.js';
import { createSeats } from './license/seats.js';
import { createLicenseService, type LicenseService } from './license/service.js';
import { createLicenseStore } from './license/store.js';
import { createLicenseVerifier } from './license/verify.js';
import { createViewStore } from './views/store.js';
import { createViews, type ViewsService } from './views/service.js';
import { categoryOperations, licenseOperations, viewOperations } from './operations.js';

/** The Enterprise services of one replica, beside the OSS Portico they extend. */
export interface Enterprise {
  config: EnterpriseConfig;
  database: Database;
  license: LicenseService;
  categories: CategoriesService;
  views: ViewsService;
  /** Notes a signed-in user's activity (seats); cheap, never throws. */
  touch(actor: Actor): void;
  stop(): Promise<void>;
}

export interface CreateEnterpriseOptions {
  portico: Portico;
  config: EnterpriseConfig;
  /**
   * The edition's database, opened before Portico started (its pool also carries the audit hook given to
   * `createPortico`, see core-plugin.ts); opened here when absent.
   */
  database?: Database;
  logger?: Logger;
  /** Pool sizing and timeouts (tests shorten them). */
  pool?: { connectTimeoutMs?: number; statementTimeoutMs?: number; max?: number };
  now?: () => Date;
}

/**
 * Wires the Enterprise domain onto a started Portico: PostgreSQL (migrated in the background), the license
 * from its Secret, categories from their CRD, views from PostgreSQL. Nothing here knows HTTP.
 */
export async function createEnterprise(opts: CreateEnterpriseOptions): Promise<Enterprise> {
  const { portico, config } = opts;
  const logger = opts.logger ?? portico.logger;
  const database = opts.database ?? openEnterpriseDatabase(config, logger, opts.pool);
  const opened: Array<() => unknown> = [() => database.stop()];
  try {
    const keys = await loadLicenseKeys(config.licenseKeysFile);
    const fileToken = await readLicenseFile(config.licenseFile, logger);
    const seats = createSeats(database);
    const license = portico.operations.wrap(
      createLicenseService({
        store: createLicenseStore({ cluster: portico.cluster, namespace: portico.config.kubernetes.namespace, logger }),
        verify: createLicenseVerifier(keys),
        seats,
        authz: portico.authz,
        vocabulary: portico.vocabulary,
        logger,
        fileToken,
        now: opts.now,
      }),
      licenseOperations,
    );
    opened.push(() => license.stop());
    await license.start();

    const { catalog, instances } = portico;
    const categoryInformer = createInformer(portico.cluster, categoryResource, { logger });
    opened.push(() => categoryInformer.stop());
    await categoryInformer.start();
    const categories = portico.operations.wrap(
      createCategories({ cluster: portico.cluster, informer: categoryInformer, catalog, authz: portico.authz, vocabulary: portico.vocabulary }),
      categoryOperations,
    );

    const views = portico.operations.wrap(
      createViews({
        store: createViewStore(database),
        catalog: { entries: () => catalog.entries(), visibleTo: (actor, entry) => catalog.visibleTo(actor, entry), instanceCounts: (actor) => instances.instanceCounts(actor) },
        authz: portico.authz,
        vocabulary: portico.vocabulary,
      }),
      viewOperations,
    );

    return {
      config,
      database,
      license,
      categories,
      views,
      touch: (actor) => seats.touch(actor.id),
      async stop() {
        for (const close of opened.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
      },
    };
  } catch (error) {
    for (const close of opened.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw error;
  }
}

/** The edition's PostgreSQL (migrated in the background), before or beside Portico. */
export function openEnterpriseDatabase(config: EnterpriseConfig, logger: Logger, pool?: CreateEnterpriseOptions['pool']): Database {
  const dbConfig = { url: config.databaseUrl, schema: config.schema, ...pool };
  return openDatabase(dbConfig, createPool(dbConfig), logger);
}

/** `PORTICO_LICENSE_FILE` may point at an optional Secret's mount: a missing file means "no license file". */
async function readLicenseFile(file: string | undefined, logger: Logger): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`PORTICO_LICENSE_FILE: cannot read ${file}: ${(error as Error).message}`);
    logger.info({ file }, 'PORTICO_LICENSE_FILE does not exist: no license file');
    return undefined;
  }
}
