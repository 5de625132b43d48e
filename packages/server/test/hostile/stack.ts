import { fileURLToPath } from 'node:url';
import { createEmbeddedCluster } from '../../../core/src/adapters/embedded-cluster/index.js';
import { createMemoryKeyValue } from '../../../core/src/adapters/memory-kv.js';
import type { Limits } from '../../../core/src/limits/index.js';
import { createPortico } from '../../../core/src/portico.js';
import { createLogger, loadConfig, type Cluster, type KeyValue, type Portico } from '@portico/core';
import { createServer, type PorticoServer } from '../../src/app.js';

export const ADMIN_PASSWORD = 'correct-horse-battery-staple';
export const fixtures = [fileURLToPath(new URL('../ws/fixtures/catalog.yaml', import.meta.url))];

export type LimitedPortico = Portico & { limits: Limits };

export interface PorticoStack {
  portico: LimitedPortico;
  server: PorticoServer;
  url: string;
  port: number;
  /** A session token of the local admin. */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

/**
 * A real Portico (createPortico over the embedded cluster with the WebSocket test catalog, unless another
 * cluster is given) behind the real HTTP server on 127.0.0.1:0, with the rate limits and OIDC providers that
 * `env` configures.
 */
export async function startPorticoStack(opts: { env?: Record<string, string>; kv?: KeyValue; cluster?: Cluster } = {}): Promise<PorticoStack> {
  const logger = createLogger('silent');
  const env: Record<string, string> = { PORTICO_PROFILE: 'development', ADMIN_PASSWORD, PORTICO_KRO_STEP_MS: '20', ...opts.env };
  const config = { ...loadConfig(env), manifests: fixtures };
  const ownCluster = !opts.cluster;
  const cluster = opts.cluster ?? (await createEmbeddedCluster({ manifests: fixtures, kroStepMs: config.kroStepMs, logger }));
  const kv = opts.kv ?? createMemoryKeyValue();
  // createPortico reads the OIDC providers and the rate limits from `env`, as portico-server does.
  const portico: LimitedPortico = await createPortico({ config, env, cluster, kv, logger });

  const server = createServer(portico);
  const address = await server.listen('127.0.0.1', 0);
  const url = `http://127.0.0.1:${address.port}`;
  let token: string | undefined;
  return {
    portico,
    server,
    url,
    port: address.port,
    async adminToken() {
      token ??= (await portico.auth.localLogin({ username: 'admin', password: ADMIN_PASSWORD }, { ip: '192.0.2.1' })).token;
      return token;
    },
    async close() {
      await server.close();
      await portico.stop();
      if (!opts.kv) await kv.close();
      if (ownCluster) await cluster.close();
    },
  };
}
