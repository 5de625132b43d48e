import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { builtInLicenseKeys, loadLicenseKeys } from '../../src/license/keys.js';
import { createLicenseVerifier } from '../../src/license/verify.js';
import { exampleKeysFile, issueLicense } from '../support/license.js';

const keys = await loadLicenseKeys(exampleKeysFile);
const verify = createLicenseVerifier(keys);
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

describe('license verification (offline, Ed25519)', () => {
  it('accepts a license signed by a configured key and reads its claims', async () => {
    const result = await verify(issueLicense({ customer: 'acme', features: ['audit', 'views'], maxUsers: 25 }));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.claims).toMatchObject({ sub: 'acme', features: ['audit', 'views'], maxUsers: 25, edition: 'enterprise' });
  });

  it('accepts an expired license: dates are judged by the status, not by verification', async () => {
    expect((await verify(issueLicense({ expires: '-30d' }))).ok).toBe(true);
  });

  it('refuses the example license when only the built-in keys are trusted, naming its key and the setting that adds one', async () => {
    const strict = createLicenseVerifier(builtInLicenseKeys);
    const result = await strict(issueLicense());
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toContain('signed with key "portico-example-throwaway", which this server does not trust');
      expect(result.reason).toContain('PORTICO_LICENSE_KEYS');
      expect(result.reason).toContain('npm run start:enterprise');
    }
  });

  it('names the unknown key of a license signed by a vendor key this server was not given', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const token = await new SignJWT(payloadOf(issueLicense())).setProtectedHeader({ alg: 'EdDSA', kid: 'vendor-2027-1' }).sign(privateKey);
    const result = await verify(token);
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^the license is signed with key "vendor-2027-1", which this server does not trust: add its public key to the JWKS file named by PORTICO_LICENSE_KEYS/) });
  });

  it('refuses a token whose claims were edited after signing (forged)', async () => {
    const [header, , signature] = issueLicense({ features: ['audit'] }).split('.');
    const forged = Buffer.from(JSON.stringify({ ...payloadOf(issueLicense()), features: ['audit', 'compliance'], maxUsers: 0 })).toString('base64url');
    expect(await verify(`${header}.${forged}.${signature}`)).toEqual({ ok: false, reason: expect.stringContaining('signature') });
  });

  it('refuses a token signed by an unknown Ed25519 key carrying a trusted kid', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const claims = payloadOf(issueLicense());
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: keys.keys[1].kid }).sign(privateKey);
    // A trusted kid with a wrong signature is a forgery or corruption, not a missing key: no advice to add it.
    expect(await verify(token)).toEqual({ ok: false, reason: expect.stringMatching(/does not verify against key "portico-example-throwaway"/) });
  });

  it('refuses alg-swapped tokens: HS256 keyed with the public key, and alg none', async () => {
    const claims = payloadOf(issueLicense());
    const publicX = Buffer.from(keys.keys[1].x as string, 'base64url');
    const hmacKey = await importJWK({ kty: 'oct', k: publicX.toString('base64url') }, 'HS256');
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: keys.keys[1].kid }).sign(hmacKey);
    expect((await verify(hs256)).ok).toBe(false);
    expect((await verify(new UnsecuredJWT(claims).encode())).ok).toBe(false);
  });

  it('refuses garbage and a JWKS file holding a private key', async () => {
    expect(await verify('not-a-jwt')).toEqual({ ok: false, reason: 'the license is not a signed token (a JWT of three dot-separated parts)' });
    const { writeFile, mkdtemp } = await import('node:fs/promises');
    const dir = await mkdtemp('/tmp/portico-keys-');
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeFile(`${dir}/k.json`, JSON.stringify({ keys: [privateKey.export({ format: 'jwk' })] }));
    await expect(loadLicenseKeys(`${dir}/k.json`)).rejects.toThrow(/PORTICO_LICENSE_KEYS/);
  });
});
