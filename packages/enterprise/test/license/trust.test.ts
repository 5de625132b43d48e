import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { importJWK, SignJWT } from 'jose';
import { createLogger, systemActor } from '@portico/core';
import { describe, expect, it } from 'vitest';
import { loadLicenseKeys } from '../../src/license/keys.js';
import type { Seats } from '../../src/license/seats.js';
import { createLicenseService } from '../../src/license/service.js';
import { evaluateLicense } from '../../src/license/status.js';
import type { LicenseStore } from '../../src/license/store.js';
import { createLicenseVerifier } from '../../src/license/verify.js';
import type { LicenseClaims } from '../../src/license/claims.js';
import { exampleKeysFile, issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const verify = createLicenseVerifier(await loadLicenseKeys(exampleKeysFile));
const privateJwk = JSON.parse(readFileSync(new URL('../../../../examples/enterprise/throwaway-private.jwk.json', import.meta.url), 'utf8'));
/** A license signed with the example key for a customer no command line could carry (a NUL). */
const signedFor = async (customer: string) =>
  new SignJWT({ lid: 'lic-hostile', edition: 'enterprise', features: ['views'], maxUsers: 0 })
    .setProtectedHeader({ alg: 'EdDSA', kid: privateJwk.kid, typ: 'JWT' })
    .setSubject(customer)
    .setIssuedAt()
    .setExpirationTime('30d')
    .sign(await importJWK(privateJwk, 'EdDSA'));
const admin = systemActor('admin');

/** The license service over doubles of its store and seats, logging into `lines`; `fileToken` as PORTICO_LICENSE_FILE gives it. */
function serviceWith(opts: { fileToken?: string } = {}) {
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  let stored: string | undefined;
  const store: LicenseStore = {
    start: async () => {}, stop: () => {}, token: () => stored, write: async (token) => void (stored = token), onChange: () => {}, health: () => ({ ok: true }),
  };
  const seats: Seats = { touch: () => {}, used: () => 0, refresh: async () => 0, stop: () => {} };
  const service = createLicenseService({ vocabulary: { object: () => 'license' }, store, verify, seats, authz: { can: () => true }, logger, fileToken: opts.fileToken });
  return { service, lines };
}

// §12.1: a correctly signed token for another edition unlocks nothing; the customer text is cleaned before it is
// echoed anywhere; the grace period's boundary, on both sides, with literal dates.
describe('a license Portico can trust (§12.1)', () => {
  it('edition: a signed license whose edition is not "enterprise" does not verify, from the API or from the file', async () => {
    for (const edition of ['community', 'Enterprise', 'enterprise ', 'team']) {
      const token = issueLicense({ edition });
      expect(await verify(token), edition).toEqual({ ok: false, reason: expect.stringContaining('edition') });
      const api = serviceWith();
      await api.service.start();
      await expect(api.service.apply(admin, { token })).rejects.toMatchObject({ code: 'BAD_REQUEST', details: { field: 'token' } });
      expect((await api.service.status(admin)).status).toBe('missing');

      const file = serviceWith({ fileToken: token });
      await file.service.start();
      const status = await file.service.status(admin);
      expect(status).toMatchObject({ status: 'invalid', licensed: false });
      expect(status.license).toBeUndefined();
      expect(() => file.service.gate('views', 'read')).toThrow(expect.objectContaining({ code: 'LICENSE_REQUIRED' }));
    }
    expect((await verify(issueLicense({ edition: 'enterprise' }))).ok).toBe(true);
  });

  it('the customer (sub) is cleaned of line breaks, control characters and markup before the status and the logs echo it', async () => {
    const hostile = 'Acme\r\nlevel=error msg="forged"\u0000\u001b[31m <script>alert(1)</script><img src=x onerror=alert(2)>\u2028Corp\u202e';
    const { service, lines } = serviceWith();
    await service.start();
    const status = await service.apply(admin, { token: await signedFor(hostile) });
    const customer = status.license!.customer;
    expect(customer).toBe('Acme level=error msg="forged" [31m alert(1) Corp');
    for (const text of [customer, status.message, ...lines]) {
      expect(text.trimEnd()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u2028\u202e]|<|>/);
      expect(text.trimEnd()).not.toContain('\n');
    }
    expect(status.message).toContain('licensed to Acme level=error');
    // The file's license too (it is logged when read).
    const file = serviceWith({ fileToken: await signedFor(hostile) });
    await file.service.start();
    expect((await file.service.status(admin)).license?.customer).toBe(customer);
    expect(file.lines.join('')).not.toMatch(/\\r|\\n(?!")|<script|\\u0000/);
    expect(file.lines.join('')).toContain('licensed to Acme level=error');
  });

  it('a customer that is nothing but markup or controls leaves nothing: the license does not verify', async () => {
    expect(await verify(issueLicense({ customer: '<b></b>\r\n' }))).toEqual({ ok: false, reason: expect.stringContaining('sub') });
  });

  it('grace period: exactly 7 days after exp is still grace, 7 days and 1 ms later expired (literal dates)', () => {
    // exp 2026-03-01T00:00:00Z; grace ends 2026-03-08T00:00:00.000Z.
    const claims: LicenseClaims = { sub: 'acme', lid: 'l-1', edition: 'enterprise', features: ['views'], maxUsers: 0, iat: Date.parse('2026-01-01T00:00:00Z') / 1000, exp: Date.parse('2026-03-01T00:00:00Z') / 1000 };
    const at = (iso: string) => evaluateLicense({ token: 't', verified: { ok: true, claims } }, new Date(iso));
    expect(at('2026-02-28T23:59:59.999Z').state).toBe('valid');
    expect(at('2026-03-01T00:00:00.000Z').state).toBe('grace_period');
    expect(at('2026-03-07T23:59:59.999Z').state).toBe('grace_period');
    const last = at('2026-03-08T00:00:00.000Z');
    expect(last.state).toBe('grace_period');
    expect(last.gracePeriodEnd?.toISOString()).toBe('2026-03-08T00:00:00.000Z');
    expect(at('2026-03-08T00:00:00.001Z').state).toBe('expired');
    expect(at('2026-03-09T00:00:00.000Z').state).toBe('expired');
  });
});

describe('POST /api/v1/license with another edition', () => {
  const { ee, admin: api } = useEnterprise('embedded', { license: issueLicense({ customer: 'first' }) });

  it('is 400 and changes nothing', async () => {
    const refused = await api.post('/api/v1/license', { token: issueLicense({ edition: 'community', customer: 'other' }) });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('BAD_REQUEST');
    expect(refused.body.message).toContain('edition');
    expect((await api.get('/api/v1/license')).body).toMatchObject({ status: 'valid', license: { customer: 'first', edition: 'enterprise' } });
    expect(ee.url).toMatch(/^http/);
  });
});
