import { randomBytes } from 'node:crypto';
import type { SecretChanges, SecretStore } from './secrets.js';

/** The Secret holding the HS256 key every replica signs and verifies tokens with. */
export const SIGNING_KEY_SECRET = 'portico-signing-key';
export const SIGNING_KEY_FIELD = 'hs256';

const MIN_KEY_BYTES = 32;
// 64 bytes = SHA-256's block size: the longest key HMAC-SHA256 uses without hashing it first.
const NEW_KEY_BYTES = 64;

/**
 * Returns the shared signing key, creating it on the first start. Replicas starting together race on the
 * create; the loser re-reads and uses the winner's key.
 */
export async function loadSigningKey(secrets: SecretStore): Promise<Uint8Array> {
  const { data } = await secrets.update(SIGNING_KEY_SECRET, (current): SecretChanges =>
    current?.[SIGNING_KEY_FIELD]?.length ? {} : { [SIGNING_KEY_FIELD]: randomBytes(NEW_KEY_BYTES) },
  );
  const key = data[SIGNING_KEY_FIELD];
  if (!key || key.length < MIN_KEY_BYTES) {
    // Someone stored a weak key by hand: refuse to start rather than sign with it or silently replace it.
    throw new Error(`secret ${SIGNING_KEY_SECRET} key ${SIGNING_KEY_FIELD} must hold at least ${MIN_KEY_BYTES} bytes`);
  }
  return new Uint8Array(key);
}
