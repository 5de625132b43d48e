import { conflict, isPorticoError } from '../errors.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import { retryOnConflict } from '../cluster/retry.js';

/** A secret's data, decoded from base64. */
export type SecretData = Record<string, Buffer>;

/** Values to write: a string is stored as its UTF-8 bytes; `null` removes the key. */
export type SecretChanges = Record<string, Buffer | string | null>;

export interface SecretUpdate {
  data: SecretData;
  /** Whether this call wrote anything (false when `change` asked for nothing). */
  changed: boolean;
}

/**
 * Portico's own Secrets in its namespace: the admin password hash, local accounts, the signing key. Every
 * write is race-safe across replicas (create fails on an existing secret, patches carry the resourceVersion
 * they were computed from), so two replicas starting or writing together end with one consistent value.
 */
export interface SecretStore {
  read(name: string): Promise<SecretData | undefined>;
  /**
   * Read-modify-write: `change` gets the current data (undefined when the secret does not exist) and returns
   * the keys to set or remove; it may throw to refuse. Retried on a concurrent write, up to 5 attempts.
   */
  update(name: string, change: (current: SecretData | undefined) => SecretChanges): Promise<SecretUpdate>;
}

const MAX_ATTEMPTS = 5;

/** Carries an error thrown by the caller's `change` past the retry loop unchanged. */
class Refused {
  constructor(readonly error: unknown) {}
}

const LABELS = { 'app.kubernetes.io/managed-by': 'portico', 'app.kubernetes.io/part-of': 'portico' };

const isCode = (e: unknown, code: string) => isPorticoError(e) && e.code === code;

const decode = (data: Record<string, string> | undefined): SecretData =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));

const encode = (value: Buffer | string) => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value).toString('base64');

export function createSecretStore(cluster: Cluster, namespace: string): SecretStore {
  const ref = resources.secret;

  const createSecret = async (name: string, data: Record<string, string>): Promise<KubeObject> => {
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, labels: { ...LABELS } }, type: 'Opaque', data };
    try {
      return await cluster.create(ref, secret);
    } catch (e) {
      // A fresh cluster may not have Portico's namespace yet; create it once and try again.
      if (!isCode(e, 'NOT_FOUND')) throw e;
      await cluster.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }).catch((err) => {
        if (!isCode(err, 'CONFLICT')) throw e;
      });
      return cluster.create(ref, secret);
    }
  };

  const attempt = async (name: string, change: (current: SecretData | undefined) => SecretChanges): Promise<SecretUpdate> => {
    const existing = await cluster.get(ref, name, namespace);
    const current = existing ? decode(existing.data) : undefined;
    let requested: SecretChanges;
    try {
      requested = change(current);
    } catch (refusal) {
      throw new Refused(refusal);
    }
    const changes = Object.entries(requested);
    if (changes.length === 0) return { data: current ?? {}, changed: false };
    if (!existing) {
      const data = Object.fromEntries(changes.filter(([, v]) => v !== null).map(([k, v]) => [k, encode(v as Buffer | string)]));
      return { data: decode((await createSecret(name, data)).data), changed: true };
    }
    const patch = Object.fromEntries(changes.map(([k, v]) => [k, v === null ? null : encode(v)]));
    const patched = await cluster.patch(ref, name, { data: patch }, { namespace, resourceVersion: existing.metadata.resourceVersion });
    return { data: decode(patched.data), changed: true };
  };

  return {
    async read(name) {
      const secret = await cluster.get(ref, name, namespace);
      return secret ? decode(secret.data) : undefined;
    },
    async update(name, change) {
      try {
        // CONFLICT: another replica created or changed the secret since we read it; recompute from its state.
        return await retryOnConflict(() => attempt(name, change), { attempts: MAX_ATTEMPTS });
      } catch (e) {
        // `change` refused (e.g. the account exists): its error is the answer, never a reason to retry.
        if (e instanceof Refused) throw e.error;
        if (isCode(e, 'CONFLICT')) throw conflict(`secret ${name} is being changed concurrently, retry`);
        throw e;
      }
    },
  };
}
