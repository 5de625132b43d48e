#!/usr/bin/env node
// Portico as a library, without the HTTP server: `createPortico` from @portico/core with an embedded cluster in a
// temporary directory, the in-memory key-value store and the example catalog. It signs in as the admin, lists the
// catalog, creates a WebApp through `portico.instances.create` (the same checks, errors and events an HTTP client
// gets), waits on `portico.events.onEvent` until the instance is Healthy, prints it and stops.
//
//   node examples/embedded/embedded.mjs
//
// Exit code 0 when the instance became Healthy, 1 otherwise.
import { createPortico } from '@portico/core';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const catalog = fileURLToPath(new URL('../catalog', import.meta.url));
const dataDir = await mkdtemp(join(tmpdir(), 'portico-embedded-'));
const adminPassword = randomBytes(16).toString('hex');
const name = 'embedded-shop';

const portico = await createPortico({
  env: {
    PORTICO_PROFILE: 'development',
    PORTICO_CLUSTER: 'embedded',
    PORTICO_KV: 'memory',
    PORTICO_DATA_DIR: dataDir,
    PORTICO_MANIFESTS: catalog,
    ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '50', // the simulated kro controller's pace
    LOG_LEVEL: 'warn',
  },
});

/**
 * Watches the events of our instance. `healthy` resolves with it once an event says it is Healthy and rejects on
 * Unhealthy/Degraded or after `ms`; `stop()` ends the watch (also when we give up before it settles).
 */
function watchUntilHealthy(ms) {
  let subscription;
  let timer;
  const healthy = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not become Healthy within ${ms / 1000} s`)), ms);
    subscription = portico.events.onEvent((event) => {
      if (event.name !== name) return;
      if (event.type === 'deploy_progress') {
        const { readyResources, totalResources, phase } = event.data;
        console.log(`progress ${readyResources}/${totalResources} ${phase || 'PENDING'}`);
      } else if (event.type === 'instance_update') {
        const { instance } = event.data;
        if (instance.health === 'Healthy') resolve(instance);
        else if (instance.health === 'Unhealthy' || instance.health === 'Degraded') reject(new Error(`${name} is ${instance.health}`));
      }
    });
  });
  const stop = () => {
    clearTimeout(timer);
    subscription.close();
  };
  healthy.then(stop, stop);
  return { healthy, stop };
}

/**
 * kro activates RGDs asynchronously (the embedded cluster runs a stand-in for its controller), so right after
 * start an RGD may still be Inactive and refuse instances: wait until it is Active.
 */
async function activeRgd(actor, rgdName, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const rgd = portico.catalog.get(actor, rgdName);
    if (rgd.status === 'Active') return rgd;
    if (Date.now() > deadline) throw new Error(`rgd ${rgdName} is still ${rgd.status} after ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

try {
  // Signing in gives a token; verifying it gives the Actor every domain call takes.
  const session = await portico.auth.localLogin({ username: 'admin', password: adminPassword }, { ip: '127.0.0.1' });
  const actor = await portico.auth.verifyToken(session.token);
  console.log(`signed in as ${actor.id} (${session.user.casbinRoles.join(', ')})`);

  const rgds = portico.catalog.list(actor, { page: 1, pageSize: 100, sortBy: 'name', sortOrder: 'asc' });
  console.log(`catalog: ${rgds.totalCount} RGDs`);
  for (const rgd of rgds.items) console.log(`  ${rgd.name.padEnd(24)} ${rgd.kind.padEnd(22)} ${rgd.category}`);

  const rgd = await activeRgd(actor, 'web-app', 30_000);
  // Listen first, then create: the events of the new instance cannot be missed.
  const watch = watchUntilHealthy(60_000);
  try {
    const created = await portico.instances.create(actor, {
      name,
      namespace: 'dev',
      project: 'default',
      kind: rgd.kind,
      values: { image: 'ghcr.io/acme/shop:1.4.2', replicas: 2 },
    });
    console.log(`created ${created.kind}/${created.name} in ${created.namespace} (health ${created.health})`);
    await watch.healthy;
  } finally {
    watch.stop();
  }

  const instance = portico.instances.get(actor, { namespace: 'dev', kind: 'WebApp', name });
  console.log(`${instance.kind}/${instance.name} is ${instance.health}`);
  console.log(JSON.stringify({ name: instance.name, namespace: instance.namespace, health: instance.health, state: instance.status.state, spec: instance.spec }, null, 2));
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await portico.stop();
  await rm(dataDir, { recursive: true, force: true });
}
