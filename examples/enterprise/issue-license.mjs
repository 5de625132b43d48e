#!/usr/bin/env node
// Signs a Portico Enterprise license with the THROWAWAY example key of this folder. For the project's own
// tests and docs only: a server accepts these licenses only when started with
// PORTICO_LICENSE_KEYS=examples/enterprise/throwaway-public.jwks.json (`npm run start:enterprise` is). Real licenses are signed by the vendor
// with a key whose public half is built into @portico/enterprise.
//
//   node examples/enterprise/issue-license.mjs --customer acme --features audit,categories,views \
//     --expires +365d --max-users 50
//
// Dates take an RFC 3339 time or an offset from now: +30d, +2h, and for past dates --expires=-8d.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SignJWT, importJWK } from 'jose';

const { values } = parseArgs({
  options: {
    customer: { type: 'string', default: 'example-customer' },
    'license-id': { type: 'string' },
    edition: { type: 'string', default: 'enterprise' },
    features: { type: 'string', default: 'audit,compliance,categories,views,secrets' },
    'max-users': { type: 'string', default: '0' },
    'issued-at': { type: 'string', default: '+0d' },
    'not-before': { type: 'string' },
    expires: { type: 'string', default: '+365d' },
    key: { type: 'string', default: new URL('./throwaway-private.jwk.json', import.meta.url).pathname },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write('usage: issue-license.mjs [--customer C] [--features a,b] [--max-users N] [--expires +365d|RFC3339] [--not-before T] [--issued-at T] [--key private.jwk.json]\n');
  process.exit(0);
}

const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 };
/** Seconds since the epoch for `+30d`-style offsets or an RFC 3339 time. */
function when(text, name) {
  const offset = /^([+-]\d+)([dhms])$/.exec(text);
  if (offset) return Math.floor(Date.now() / 1000) + Number(offset[1]) * UNIT_SECONDS[offset[2]];
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`--${name}: expected +30d / -8d / RFC 3339, got "${text}"`);
  return Math.floor(ms / 1000);
}

const jwk = JSON.parse(readFileSync(values.key, 'utf8'));
const key = await importJWK(jwk, 'EdDSA');
const iat = when(values['issued-at'], 'issued-at');
const claims = {
  lid: values['license-id'] ?? randomUUID(),
  edition: values.edition,
  features: values.features.split(',').map((f) => f.trim()).filter(Boolean),
  maxUsers: Number.parseInt(values['max-users'], 10),
};
const jwt = new SignJWT(claims)
  .setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid, typ: 'JWT' })
  .setSubject(values.customer)
  .setIssuedAt(iat)
  .setNotBefore(values['not-before'] ? when(values['not-before'], 'not-before') : iat)
  .setExpirationTime(when(values.expires, 'expires'));
process.stdout.write(`${await jwt.sign(key)}\n`);
