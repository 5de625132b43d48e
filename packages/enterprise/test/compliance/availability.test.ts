import { complianceRoutes } from '@portico/api/enterprise';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../../../server/test/support/api-as.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const at = (p: string) => new URL(`../../../../${p}`, import.meta.url).pathname;
/** The sample installation without Gatekeeper: no examples/catalog/compliance. */
const withoutGatekeeper = [at('examples/catalog/namespaces.yaml'), at('examples/catalog/projects'), at('examples/catalog/rgds'), at('deploy/crds/category.yaml')];

/** Every compliance route with a path and body that pass validation, so what answers is the route itself. */
const calls = complianceRoutes.map((route) => ({
  id: route.id,
  method: route.method,
  path: route.path.replace('{kind}', 'K8sRequiredLabels').replace('{name}', 'some-name'),
  body: {
    createConstraint: { name: 'some-name', templateName: 'k8srequiredlabels', match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }] } },
    setConstraintEnforcement: { enforcementAction: 'warn' },
    validateCompliance: { rgdName: 'web-app', project: 'default', namespace: 'dev', values: { image: 'nginx:1' } },
  }[route.id as string],
}));

describe('compliance acceptance 4: Gatekeeper CRDs absent (Kubernetes adapter)', () => {
  const { admin } = useEnterprise('kubernetes', { manifests: withoutGatekeeper, license: issueLicense() });

  it('status says not_installed, every data route answers 503 with Retry-After, the rest of Portico works', async () => {
    expect((await admin.get('/api/v1/compliance/status')).body).toEqual({
      available: false, enterprise: true, gatekeeper: 'not_installed', message: expect.stringContaining('not installed'),
    });
    for (const call of calls.filter((c) => c.id !== 'complianceStatus')) {
      const res = await admin.call(call.method, call.path, call.body);
      expect(res.status, `${call.id}: ${JSON.stringify(res.body)}`).toBe(503);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await admin.get('/api/v1/rgds')).body.totalCount).toBeGreaterThan(0);
    const created = await admin.post('/api/v1/namespaces/dev/instances/WebApp', { name: uniqueName('web'), project: 'default', values: { image: 'nginx:1' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.details).toBeUndefined();
    await eventually(() => admin.get('/readyz'), (r) => r.status === 200, 'readiness');
  });
});

describe('compliance acceptance 5: a license without `compliance`', () => {
  const { admin } = useEnterprise('embedded', { license: issueLicense({ features: ['audit', 'categories'] }) });

  it('answers 402 LICENSE_REQUIRED naming the feature on every compliance route', async () => {
    for (const call of calls) {
      const res = await admin.call(call.method, call.path, call.body);
      expect(res.status, `${call.id}: ${JSON.stringify(res.body)}`).toBe(402);
      expect(res.body).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'compliance' } });
    }
  });
});
