import { createClient, PorticoApiError, type PorticoClient } from '@portico/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser } from '../../server/test/support/api-as.js';
import { useServer } from '../../server/test/support/cluster-modes.js';

/** The SDK's preflight, settings, preferences, icons and cluster discovery against a real in-process server. */
describe('SDK: preflight, settings, preferences, icons, cluster kinds', () => {
  const { tp } = useServer('embedded', { env: { PORTICO_ORGANIZATION: 'SDK Org' } });
  let admin: PorticoClient;
  let member: PorticoClient;
  let project: string;

  beforeAll(async () => {
    admin = createClient({ baseUrl: tp.url, token: tp.adminToken });
    project = await createProject(tp, 'sdk', ['dev']);
    const user = await createUser(tp, 'sdk-member');
    member = createClient({ baseUrl: tp.url, token: user.token });
    await admin.projects.bindUser(project, 'developer', user.username);
  });

  it('instances.preflight checks a create by kind, namespaced or cluster-scoped, and writes nothing', async () => {
    const ok = await member.instances.preflight({ kind: 'WebApp', namespace: 'dev', name: 'sdk-web', project, values: { image: 'nginx' } });
    expect(ok.valid).toBe(true);
    expect(ok.checks.at(-1)).toEqual({ name: 'admission', ok: true });
    await expect(member.instances.get({ kind: 'WebApp', namespace: 'dev', name: 'sdk-web' })).rejects.toMatchObject({ status: 404 });
    const refused = await member.instances.preflight({ kind: 'WebApp', namespace: 'prod', project, values: { image: 'nginx' } });
    expect(refused).toMatchObject({ valid: false, message: expect.stringMatching(/not a destination/) });
    const scoped = await member.instances.preflight({ kind: 'TenantNamespace', project, values: { team: 'sdk', adminGroup: 'sdk-admins' } });
    expect(scoped.valid).toBe(true);
  });

  it('settings, preferences and icons', async () => {
    expect(await member.settings.get()).toEqual({ organization: 'SDK Org' });
    expect(await member.preferences.update({ favoriteRgds: ['web-app', 'web-app'] })).toEqual({ favoriteRgds: ['web-app'], recentRgds: [] });
    expect(await member.preferences.get()).toEqual({ favoriteRgds: ['web-app'], recentRgds: [] });
    await expect(member.preferences.update({ recentRgds: ['Not Valid'] })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const anonymous = createClient({ baseUrl: tp.url });
    expect(anonymous.icons.url('database')).toBe(`${tp.url}/api/v1/icons/database`);
    expect(await anonymous.icons.get('database')).toMatch(/^<svg /);
    const missing = await anonymous.icons.get('no-such-icon').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PorticoApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('kubernetes.apiResources lists and filters the cluster\'s kinds for a Server Admin only', async () => {
    const kro = await admin.kubernetes.apiResources({ apiGroup: 'kro.run', search: 'graphdef' });
    expect(kro).toEqual({ resources: [{ apiGroup: 'kro.run', kind: 'ResourceGraphDefinition' }], count: 1 });
    expect((await admin.kubernetes.apiResources()).resources).toContainEqual({ apiGroup: 'kro.run', kind: 'WebApp' });
    await expect(member.kubernetes.apiResources()).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });
});

