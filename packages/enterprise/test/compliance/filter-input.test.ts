import { describe, expect, it } from 'vitest';
import { eventually } from '../../../core/test/support/eventually.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;

/** Characters no filter value may hold: NUL, the other C0 controls, DEL, and C1 controls. */
const controls = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f', '\u0085', '\u009f'];
const since = '2024-01-01T00:00:00Z';

/** Each compliance filter with a valid value for it, and the routes (both prefixes) that take it. */
const filters: Array<{ paths: string[]; field: string; valid: string; base?: string }> = [
  ...['/api/v1/compliance/violations', '/api/v1/gatekeeper/violations'].flatMap((path) => [
    { paths: [path], field: 'constraint', valid: 'K8sRequiredLabels/need-team' },
    { paths: [path], field: 'resource', valid: 'Deployment/dev/web' },
    { paths: [path], field: 'project', valid: 'alpha' },
    { paths: [path], field: 'page', valid: '1' },
    { paths: [path], field: 'pageSize', valid: '20' },
  ]),
  ...['/api/v1/compliance/constraints', '/api/v1/gatekeeper/constraints'].flatMap((path) => [
    { paths: [path], field: 'kind', valid: 'K8sRequiredLabels' },
    { paths: [path], field: 'enforcement', valid: 'deny' },
  ]),
  { paths: ['/api/v1/compliance/templates', '/api/v1/gatekeeper/templates'], field: 'pageSize', valid: '20' },
  ...['/api/v1/compliance/violations/history', '/api/v1/compliance/violations/history/count'].flatMap((path) =>
    ['since', 'until', 'enforcement', 'constraint', 'resource', 'status'].map((field) => ({
      paths: [path], field,
      valid: { since, until: '2030-01-01T00:00:00Z', enforcement: 'deny', constraint: 'K8sRequiredLabels/need-team', resource: 'Deployment/dev/web', status: 'all' }[field]!,
    })),
  ),
  // An export names `since`; the others ride along with a valid one.
  ...['until', 'enforcement', 'constraint', 'resource', 'status'].map((field) => ({
    paths: ['/api/v1/compliance/violations/history/export'], field, base: `since=${since}`,
    valid: { until: '2030-01-01T00:00:00Z', enforcement: 'deny', constraint: 'K8sRequiredLabels/need-team', resource: 'Deployment/dev/web', status: 'all' }[field]!,
  })),
  { paths: ['/api/v1/compliance/violations/history/export'], field: 'since', valid: since },
];

// A NUL byte or another control character in any compliance filter is the caller's 400 (BAD_REQUEST or
// VALIDATION_FAILED), on /compliance/* and /gatekeeper/* alike: never a 503 from the database refusing the text,
// and an export is refused before its first byte rather than cut mid-stream.
describe('control characters in compliance filters', () => {
  const { ee, admin } = useEnterprise('embedded', { manifests: [catalog], license: issueLicense(), gatekeeper: true });

  it('every filter, every control character, both prefixes: 400 with the JSON error envelope', async () => {
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    const raw = async (pathAndQuery: string) => {
      try {
        const res = await fetch(`${ee.url}${pathAndQuery}`, { headers: { authorization: `Bearer ${admin.token}` } });
        return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
      } catch (err) {
        // A connection closed mid-answer: what an export cut off after its headers looks like.
        return { status: 0, type: '', text: `connection cut: ${(err as Error).message}` };
      }
    };
    const failures: string[] = [];
    for (const { paths, field, valid, base } of filters) {
      for (const path of paths) {
        // The valid value passes (so a refusal below is about the character alone)…
        const fine = await raw(`${path}?${base ? `${base}&` : ''}${field}=${encodeURIComponent(valid)}`);
        if (fine.status !== 200) failures.push(`${path}?${field}=${valid} → ${fine.status} (expected 200)`);
        for (const c of controls) {
          // …then the character alone, at the start, inside and at the end.
          for (const value of [c, `${c}${valid}`, `${valid.slice(0, 3)}${c}${valid.slice(3)}`, `${valid}${c}`]) {
            const query = `${base ? `${base}&` : ''}${field}=${encodeURIComponent(value)}`;
            const res = await raw(`${path}?${query}`);
            const body = res.type.startsWith('application/json') ? JSON.parse(res.text) : undefined;
            if (res.status !== 400 || !['BAD_REQUEST', 'VALIDATION_FAILED'].includes(body?.code)) {
              failures.push(`${path}?${JSON.stringify(query)} → ${res.status} ${res.type} ${res.text.slice(0, 100)}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

