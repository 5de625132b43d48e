import { describe, expect, it } from 'vitest';
import { gateFeature } from '../../src/license/gate.js';
import { evaluateLicense, licenseStatusBody, GRACE_PERIOD_MS } from '../../src/license/status.js';
import type { LicenseClaims } from '../../src/license/claims.js';

const day = 86_400;
const now = new Date('2026-06-01T00:00:00Z');
const t = now.getTime() / 1000;
const claims = (over: Partial<LicenseClaims> = {}): LicenseClaims => ({
  sub: 'acme', lid: 'lic-1', edition: 'enterprise', features: ['audit', 'categories', 'views'], maxUsers: 10, iat: t - 30 * day, exp: t + 30 * day, ...over,
});
const evaluate = (c: LicenseClaims) => evaluateLicense({ token: 'x', verified: { ok: true, claims: c } }, now);

const caught = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as { code: string; status?: number; details: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
};

describe('license states and the feature gate (§12.1)', () => {
  it('missing and invalid licenses refuse every feature with 402 naming it', () => {
    for (const evaluated of [evaluateLicense({}, now), evaluateLicense({ token: 'x', verified: { ok: false, reason: 'bad signature' } }, now)]) {
      expect(['missing', 'invalid']).toContain(evaluated.state);
      expect(caught(() => gateFeature(evaluated, 'views', 'read', 0))).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'views' } });
    }
  });

  it('valid: licensed features pass without warnings, a feature absent from the license is 402', () => {
    const evaluated = evaluate(claims());
    expect(evaluated.state).toBe('valid');
    expect(gateFeature(evaluated, 'views', 'write', 3)).toEqual([]);
    expect(caught(() => gateFeature(evaluated, 'compliance', 'read', 3))).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'compliance' } });
  });

  it('grace period: full service for 7 days after exp, with the expired warning', () => {
    const evaluated = evaluate(claims({ exp: t - 2 * day }));
    expect(evaluated.state).toBe('grace_period');
    expect(evaluated.gracePeriodEnd?.getTime()).toBe((t - 2 * day) * 1000 + GRACE_PERIOD_MS);
    expect(gateFeature(evaluated, 'views', 'write', 0)).toEqual(['expired']);
  });

  it('expired: reads are served with the warning, writes are 402 with reason license_expired', () => {
    const evaluated = evaluate(claims({ exp: t - 8 * day }));
    expect(evaluated.state).toBe('expired');
    expect(gateFeature(evaluated, 'views', 'read', 0)).toEqual(['expired']);
    expect(caught(() => gateFeature(evaluated, 'views', 'write', 0))).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'views', reason: 'license_expired' } });
  });

  it('a license not valid yet (nbf in the future) is invalid', () => {
    expect(evaluate(claims({ nbf: t + day })).state).toBe('invalid');
  });

  it('seats over maxUsers warn in the status and the header, never lock out', () => {
    const evaluated = evaluate(claims({ maxUsers: 2 }));
    expect(gateFeature(evaluated, 'views', 'write', 3)).toEqual(['seats_exceeded']);
    const body = licenseStatusBody(evaluated, 3);
    expect(body).toMatchObject({ licensed: true, enterprise: true, status: 'valid', seats: { used: 3, max: 2 }, license: { licenseId: 'lic-1', customer: 'acme', maxUsers: 2 } });
    expect(body.message).toMatch(/3 active users exceed the 2 seats/);
  });

  it('the status body of a missing license has no license object but always seats', () => {
    expect(licenseStatusBody(evaluateLicense({}, now), 0)).toEqual({ licensed: false, enterprise: true, status: 'missing', message: 'no license is installed', seats: { used: 0, max: 0 } });
  });
});
