import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesCluster, createLogger } from '@portico/core';
import { startFakeKubeApi, type FakeKubeApi } from '../packages/core/test/support/fake-kube-api.js';
import { kubectlApply, readManifestFiles } from '../packages/core/test/support/kubectl.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../packages/enterprise/test/support/db.js';
import { exampleKeysFile, issueLicense } from '../packages/enterprise/test/support/license.js';
import { deleteRedisKeys, login, uniqueRedisPrefix } from '../packages/server/test/support/portico.js';
import { buildRenderer, chartDir, deployDir, renderChart, type Manifest } from './helm-render.js';

/**
 * Issue 40, acceptance 2: the Enterprise chart, rendered, runs. The built Enterprise server is started with the
 * environment of the rendered Deployment, each secretKeyRef answered from the Secrets an operator creates, and the
 * license Secret's content at the rendered mount path (under a scratch root instead of /); `GET /license` is
 * valid. Only what a test machine needs differs from the pod: free ports, a kubeconfig for the loopback API server
 * instead of the in-cluster one, the example key that signs test licenses (PORTICO_LICENSE_KEYS), and a Redis
 * prefix and database schema of its own.
 */

const bin = path.join(deployDir, '..', 'packages', 'enterprise', 'dist', 'bin.js');
let root: string;
let api: FakeKubeApi;
let server: ChildProcess | undefined;
let output = '';
const redisPrefix = uniqueRedisPrefix();
const schema = uniqueSchema('helm');

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } };

/** The Secrets an operator creates before installing (values-enterprise.yaml's header). */
const license = issueLicense({ customer: 'Helm Test Co' });
const secrets: Record<string, Record<string, string>> = {
  'portico-database': { url: TEST_DATABASE_URL },
  'portico-redis': { url: 'redis://127.0.0.1:6379' },
  'portico-license-file': { 'license.jwt': license },
};

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`);
  root = mkdtempSync(path.join(tmpdir(), 'portico-helm-ee-'));
  api = await startFakeKubeApi();
  const kubectl = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, logger: createLogger('silent') });
  await kubectlApply(kubectl, await readManifestFiles(['project.yaml', 'category.yaml'].map((f) => path.join(deployDir, 'crds', f))));
  await kubectl.close();
}, 240_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.once('exit', resolve));
  }
  await api?.stop();
  await dropSchema(schema).catch(() => undefined);
  await deleteRedisKeys(redisPrefix);
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The pod as the rendered Deployment describes it: its environment, and its Secret volumes under `root`. */
function podOf(docs: Manifest[]) {
  const pod = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'portico')!.spec.template.spec;
  const container = pod.containers[0];
  for (const mount of container.volumeMounts as { name: string; mountPath: string }[]) {
    const volume = (pod.volumes as { name: string; secret?: { secretName: string } }[]).find((v) => v.name === mount.name)!;
    if (!volume.secret) continue;
    const dir = path.join(root, mount.mountPath);
    mkdirSync(dir, { recursive: true });
    for (const [key, value] of Object.entries(secrets[volume.secret.secretName] ?? {})) writeFileSync(path.join(dir, key), value);
  }
  const env: Record<string, string> = {};
  for (const e of container.env as EnvVar[]) {
    if (e.value !== undefined) env[e.name] = e.value.startsWith('/etc/portico/') ? path.join(root, e.value) : e.value;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = secrets[e.valueFrom.secretKeyRef.name][e.valueFrom.secretKeyRef.key];
    else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = 'portico';
  }
  return env;
}

describe('the Enterprise chart, rendered and started', () => {
  it('reads the license Secret at the rendered mount path: GET /license is valid', { timeout: 120_000 }, async () => {
    const noOidc = path.join(root, 'no-oidc.yaml');
    // Single sign-on needs an identity provider to talk to; the license is what is tested here.
    writeFileSync(noOidc, 'oidc:\n  existingSecret: ""\n');
    const docs = renderChart(buildRenderer(), [path.join(chartDir, 'values-enterprise.yaml'), noOidc]);
    const pod = podOf(docs);
    expect(pod.PORTICO_LICENSE_FILE).toBe(path.join(root, '/etc/portico/license/license.jwt'));
    const kubeconfig = path.join(root, 'kubeconfig');
    writeFileSync(kubeconfig, api.kubeconfigYaml);
    const adminPassword = `helm-${Date.now()}`;
    const env = {
      ...pod,
      PATH: process.env.PATH ?? '',
      SERVER_ADDRESS: '127.0.0.1:0',
      METRICS_ADDRESS: '127.0.0.1:0',
      KUBERNETES_IN_CLUSTER: 'false',
      KUBECONFIG: kubeconfig,
      PORTICO_LICENSE_KEYS: exampleKeysFile,
      PORTICO_REDIS_PREFIX: redisPrefix,
      PORTICO_DB_SCHEMA: schema,
      ADMIN_PASSWORD: adminPassword,
      LOG_FORMAT: 'json',
    };
    server = spawn(process.execPath, [bin], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    server.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in 60 s:\n${output}`)), 60_000);
      server!.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
      const poll = setInterval(() => {
        const found = /"url":"(http:\/\/[^"]+)"[^\n]*listening/.exec(output) ?? /listening[^\n]*"url":"(http:\/\/[^"]+)"/.exec(output);
        if (found) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(found[1]);
        }
      }, 50);
    });
    const token = await login(url, 'admin', adminPassword);
    const res = await fetch(`${url}/api/v1/license`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { status: string; licensed: boolean; license?: { customer: string } };
    expect(body).toMatchObject({ status: 'valid', licensed: true, license: { customer: 'Helm Test Co' } });
  });
});
