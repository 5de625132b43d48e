import { createInformer, createSecretStore, resources, type Cluster, type Logger } from '@portico/core';

/** The cluster Secret holding the applied license, in Portico's namespace: every replica and restart sees it. */
const LICENSE_SECRET = 'portico-license';
const TOKEN_KEY = 'license.jwt';

export interface LicenseStore {
  /** Resolves once the Secret has been read (absent is fine). */
  start(): Promise<void>;
  stop(): void;
  /** The token in the Secret, as last seen by the watch. */
  token(): string | undefined;
  write(token: string): Promise<void>;
  /** Called whenever the stored token changes, on this replica or another. */
  onChange(listener: (token: string | undefined) => void): void;
  health(): { ok: boolean; message?: string };
}

/**
 * The license Secret, watched: a POST on one replica writes it, and every replica's informer sees the change
 * within the watch latency (seconds), without polling PostgreSQL or the API.
 */
export function createLicenseStore(deps: { cluster: Cluster; namespace: string; logger: Logger }): LicenseStore {
  const informer = createInformer(deps.cluster, resources.secret, { namespace: deps.namespace, logger: deps.logger });
  const secrets = createSecretStore(deps.cluster, deps.namespace);
  const listeners: Array<(token: string | undefined) => void> = [];
  const read = () => {
    const value = informer.get(LICENSE_SECRET, deps.namespace)?.data?.[TOKEN_KEY];
    return value ? Buffer.from(value, 'base64').toString('utf8').trim() || undefined : undefined;
  };
  let last: string | undefined;
  informer.on((event) => {
    if (event.object.metadata.name !== LICENSE_SECRET) return;
    const token = read();
    if (token === last) return;
    last = token;
    for (const listener of listeners) listener(token);
  });
  return {
    async start() {
      await informer.start();
      last = read();
    },
    stop: () => informer.stop(),
    token: () => last,
    async write(token) {
      await secrets.update(LICENSE_SECRET, () => ({ [TOKEN_KEY]: token }));
    },
    onChange: (listener) => void listeners.push(listener),
    health: () => informer.health(),
  };
}
