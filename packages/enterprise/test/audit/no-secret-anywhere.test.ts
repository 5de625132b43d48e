import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@portico/core';
import { uniqueName } from '../../../server/test/support/api-as.js';
import { clusterModes } from '../../../server/test/support/cluster-modes.js';
import { connect, type Client } from '../../../server/test/ws/harness.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const credentialsApp = new URL('./credentials-app.yaml', import.meta.url).pathname;
// The Kubernetes adapter serves categories from their CRD (§12.3): a cluster without it is not one Enterprise runs on.
const categoryCrd = new URL('../../../../deploy/crds/category.yaml', import.meta.url).pathname;

/** Every line the server logs, at the most talkative level, kept for the search. */
function capturedLogs() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('debug', sink), text: () => lines.join('') };
}

/** A value no test data could hold by chance, named so a failure says which input leaked. */
const planted = (what: string) => `planted-${what}-${randomUUID()}`;

/**
 * §12.2 and §11.3: the values of secrets and of secret-like fields never reach the audit trail (events read on
 * both path forms, CSV and NDJSON exports), a log line or a WebSocket frame, on either cluster adapter; while the
 * records themselves are there and name the secret, so the search is not over an empty trail.
 */
describe.each(clusterModes)('no secret value leaves in the trail, exports, logs or live frames (%s cluster)', (mode) => {
  const logs = capturedLogs();
  const { ee, admin } = useEnterprise(mode, { manifests: [catalog, categoryCrd, credentialsApp], license: issueLicense(), logger: logs.logger });
  const sockets: Client[] = [];
  afterAll(() => sockets.forEach((s) => s.socket.close()));

  it('secrets created and updated (both path families), a sign-in provider created and its client secret rotated, an instance created and patched with credentials in its values: none of the values is anywhere', async () => {
    const values = {
      secretCreated: planted('secret-create'), secretFile: planted('secret-file'), secretUpdated: planted('secret-update'),
      dbPassword: planted('DB_PASSWORD'), apiToken: planted('apiToken'), clientSecret: planted('clientSecret'), nested: planted('nested-password'),
      patchedToken: planted('patched-apiToken'), patchedNested: planted('patched-nested-password'),
      fieldCreated: planted('field-secret-create'), fieldUpserted: planted('field-secret-upsert'),
      providerSecret: planted('provider-clientSecret'), providerRotated: planted('provider-clientSecret-rotated'),
    };
    const ticket = await admin.post<{ ticket: string }>('/api/v1/ws/ticket');
    const socket = await connect(`${ee.wsBase}/ws?ticket=${ticket.body.ticket}`);
    sockets.push(socket);
    socket.send({ type: 'subscribe', data: { resourceType: 'instances' } });
    await socket.next((f) => f.type === 'subscribed');

    const outputs: Record<string, string> = {};
    const project = uniqueName('vault');
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    const secret = uniqueName('db-credentials');
    const created = await admin.post<{ resourceVersion?: string }>(`/api/v1/projects/${project}/secrets`, {
      name: secret, namespace: 'dev', data: { password: values.secretCreated, 'config.yaml': `url: postgres://app:${values.secretFile}@db` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const current = await admin.get<{ resourceVersion: string }>(`/api/v1/projects/${project}/secrets/dev/${secret}`);
    const updated = await admin.put(`/api/v1/projects/${project}/secrets/dev/${secret}`, { data: { password: values.secretUpdated }, resourceVersion: current.body.resourceVersion });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    // The field's paths (§11.3 family 2): the same operations, the same redaction.
    const fieldSecret = uniqueName('api-token');
    expect((await admin.post(`/api/v1/secrets?project=${project}`, { name: fieldSecret, namespace: 'dev', data: { note: values.fieldCreated } })).status).toBe(201);
    expect((await admin.put(`/api/v1/secrets/${fieldSecret}?project=${project}`, { namespace: 'dev', data: { note: values.fieldUpserted } })).status).toBe(200);

    // A sign-in provider (§11.6): its client secret is a secret body wherever it travels.
    const provider = uniqueName('corp-sso');
    const providerBody = {
      name: provider, issuerURL: 'https://login.example.com', clientID: 'portico', clientSecret: values.providerSecret,
      redirectURL: 'https://portico.example.com/api/v1/auth/oidc/callback', scopes: ['openid', 'email'],
    };
    const made0 = await admin.post('/api/v1/settings/sso/providers', providerBody);
    expect(made0.status, JSON.stringify(made0.body)).toBe(201);
    const { name: _name, ...change } = { ...providerBody, clientSecret: values.providerRotated };
    const rotated = await admin.put(`/api/v1/settings/sso/providers/${provider}`, change);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    outputs.providerAnswers = JSON.stringify([made0.body, rotated.body, (await admin.get(`/api/v1/settings/sso/providers/${provider}`)).body]);

    const app = uniqueName('app');
    const made = await admin.post(`/api/v1/namespaces/dev/instances/CredentialsApp`, {
      name: app, project,
      values: { DB_PASSWORD: values.dbPassword, apiToken: values.apiToken, clientSecret: values.clientSecret, database: { password: values.nested } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const patched = await admin.patch(`/api/v1/namespaces/dev/instances/CredentialsApp/${app}`, { spec: { apiToken: values.patchedToken, database: { password: values.patchedNested } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await socket.next((f) => f.type === 'instance_update' && JSON.stringify(f).includes(app));

    // The trail holds each write, the secret's under its own name, so the search below reads real records.
    const events = await eventually(
      () => admin.get<{ events: { resource: string; action: string; name: string }[] }>(`/api/v1/audit/events?pageSize=200&project=${project}`),
      (r) => r.body.events.length >= 4,
      'the four writes recorded',
    );
    expect(events.body.events).toEqual(expect.arrayContaining([
      expect.objectContaining({ resource: 'secrets', action: 'create', name: secret }),
      expect.objectContaining({ resource: 'secrets', action: 'update', name: secret }),
      expect.objectContaining({ resource: 'secrets', action: 'update', name: fieldSecret }),
      expect.objectContaining({ resource: 'instances', action: 'create', name: app }),
      expect.objectContaining({ resource: 'instances', action: 'update', name: app }),
    ]));
    const providerEvents = await admin.get<{ events: { action: string; name: string }[] }>(`/api/v1/audit/events?pageSize=200&resource=sso-providers`);
    expect(providerEvents.body.events.filter((e) => e.name === provider).map((e) => e.action).sort()).toEqual(['create', 'update']);

    outputs.logs = logs.text();
    outputs.frames = JSON.stringify(socket.frames);
    for (const prefix of ['/api/v1/audit', '/api/v1/settings/audit']) {
      outputs[`${prefix}/events`] = JSON.stringify((await admin.get(`${prefix}/events?pageSize=200`)).body);
      for (const format of ['csv', 'ndjson']) {
        const res = await fetch(`${ee.url}${prefix}/events/export?format=${format}`, { headers: { authorization: `Bearer ${ee.adminToken}` } });
        expect(res.status).toBe(200);
        outputs[`${prefix} export ${format}`] = await res.text();
      }
    }
    const { rows } = await ee.database.pool.query(`SELECT details::text AS details FROM "${ee.schema}".audit_events`);
    outputs.database = JSON.stringify(rows);
    expect(outputs.database).toContain(secret);

    const leaks = Object.entries(outputs).flatMap(([where, text]) => Object.values(values).filter((v) => text.includes(v)).map((v) => `${where}: ${v}`));
    expect(leaks).toEqual([]);
  });
});
