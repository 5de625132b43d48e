import * as api from '@portico/api';
import { describe, expect, it } from 'vitest';
import { createProject, createUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 38 (contract §11.9): what consoles in the field rely on in can-i and the account page, on both adapters.
const fieldVocabulary = [
  'projects', 'instances', 'rgds', 'secrets', 'members', 'roles', 'repositories', 'settings', 'users', 'applications',
  'clusters', 'compliance', 'audit', 'license', 'categories', 'views',
];

describe.each(clusterModes)('%s cluster', (mode) => {
  const { tp, admin } = useServer(mode);

  it('can-i (Form B) answers every resource of the field\'s vocabulary with 200, a "no" included, never 403', async () => {
    const project = await createProject(tp, 'field');
    const viewer = await createUser(tp, 'viewer');
    expect((await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${viewer.username}`)).status).toBe(201);
    const answers: Record<string, string[]> = {};
    for (const resource of fieldVocabulary) {
      for (const object of [project, '*', '-']) {
        const res = await viewer.get(`/api/v1/account/can-i/${resource}/delete/${object}`);
        expect(res.status, `${resource} on ${object}`).toBe(200);
        (answers[resource] ??= []).push(api.CanIValue.parse(res.body).value);
      }
    }
    // A viewer deletes nothing, anywhere; resources Portico does not serve are a plain no as well.
    expect(Object.values(answers).flat()).toEqual(Array(fieldVocabulary.length * 3).fill('no'));
    expect((await viewer.get(`/api/v1/account/can-i/instances/get/${project}`)).body).toEqual({ value: 'yes' });
    expect((await admin.get('/api/v1/account/can-i/applications/delete/*')).body).toEqual({ value: 'yes' });
  });

  it('account info (both forms): token times in Unix seconds, issuer Local, email <username>@local', async () => {
    const user = await createUser(tp, 'acct');
    const before = Math.floor(Date.now() / 1000);
    for (const path of ['/api/v1/account', '/api/v1/account/info']) {
      const res = await user.get(path);
      expect(res.status).toBe(200);
      const info = api.AccountInfo.parse(res.body);
      expect(info).toMatchObject({ userID: user.username, email: `${user.username}@local`, issuer: 'Local' });
      expect(typeof res.body.tokenIssuedAt).toBe('number');
      expect(info.tokenIssuedAt).toBeGreaterThan(before - 60);
      expect(info.tokenIssuedAt).toBeLessThanOrEqual(before + 60);
      expect(info.tokenExpiresAt).toBeGreaterThan(info.tokenIssuedAt);
      // A console multiplies by 1000 for a Date; the result is a real date, not "Invalid Date".
      expect(new Date(info.tokenIssuedAt * 1000).getUTCFullYear()).toBeGreaterThanOrEqual(2025);
    }
  });
});
