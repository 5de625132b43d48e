import { resetAdminPassword as resetInSecrets } from './auth/local-admin.js';
import { createSecretStore } from './auth/secrets.js';
import type { PorticoConfig } from './config.js';
import type { Logger } from './logger.js';
import { openCluster } from './portico.js';

/**
 * `portico-server admin reset-password`: opens the configured cluster (the embedded data dir or Kubernetes)
 * without serving anything, sets the admin's password and revokes the admin's tokens. With the embedded
 * cluster the server must be stopped meanwhile (it keeps the data dir in memory and would write it back): the
 * data dir's lock refuses the command while a server holds it.
 */
export async function resetAdminPassword(opts: { config: PorticoConfig; logger: Logger; password?: string }): Promise<{ password: string; generated: boolean }> {
  // The sample catalog is not needed to change a Secret.
  const cluster = await openCluster({ ...opts.config, manifests: [] }, opts.logger);
  try {
    return await resetInSecrets({ secrets: createSecretStore(cluster, opts.config.kubernetes.namespace), password: opts.password, now: Date.now });
  } finally {
    await cluster.close();
  }
}
