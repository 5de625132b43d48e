import { readFile } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';

/**
 * Public keys that verify licenses issued by the Portico vendor. Only the public halves are here; the
 * private keys never leave the vendor. Add a new key before signing with it (rotation); keep the old one
 * until every license it signed has expired.
 */
export const builtInLicenseKeys: JSONWebKeySet = {
  keys: [{ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: 'portico-2026-1', x: 'ezfCOYzn9cpZZ1QN_MVzEqloBQAYHml7rsap0x3JZFo' }],
};

/** The built-in keys plus those of `PORTICO_LICENSE_KEYS` (a JWKS file), for rotation and tests. */
export async function loadLicenseKeys(file?: string): Promise<JSONWebKeySet> {
  if (!file) return builtInLicenseKeys;
  let extra: JSONWebKeySet;
  try {
    extra = JSON.parse(await readFile(file, 'utf8')) as JSONWebKeySet;
  } catch (error) {
    throw new Error(`PORTICO_LICENSE_KEYS: cannot read a JWKS from ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(extra?.keys)) throw new Error(`PORTICO_LICENSE_KEYS: ${file} is not a JWKS (no "keys" array)`);
  const usable = extra.keys.filter((k) => k.kty === 'OKP' && k.crv === 'Ed25519' && !('d' in k));
  if (usable.length !== extra.keys.length) throw new Error('PORTICO_LICENSE_KEYS: only public Ed25519 keys (kty OKP, crv Ed25519, no "d") are accepted');
  return { keys: [...builtInLicenseKeys.keys, ...usable] };
}
