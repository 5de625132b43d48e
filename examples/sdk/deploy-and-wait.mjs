#!/usr/bin/env node
// Deploys one instance through the Portico SDK and waits until it is Healthy, printing progress as it goes.
//
//   PORTICO_SERVER=http://localhost:8080 PORTICO_USERNAME=admin PORTICO_PASSWORD=… \
//     node examples/sdk/deploy-and-wait.mjs WebApp shop '{"image":"nginx:1.27"}'
//
// Arguments: KIND NAME [VALUES_JSON]. Environment: PORTICO_SERVER (required); PORTICO_TOKEN, or
// PORTICO_USERNAME and PORTICO_PASSWORD; PORTICO_PROJECT (default "default"); PORTICO_NAMESPACE (default "dev",
// "" for a cluster-scoped kind); PORTICO_TIMEOUT_SECONDS (default 120).
// Exit codes: 0 Healthy, 1 Unhealthy/Degraded, refused or timed out, 2 bad usage.
import { createClient, loginLocal, PorticoApiError } from '@portico/client';

function usage(message) {
  console.error(`error: ${message}\nusage: deploy-and-wait.mjs KIND NAME [VALUES_JSON]  (env PORTICO_SERVER, PORTICO_TOKEN or PORTICO_USERNAME/PORTICO_PASSWORD)`);
  process.exit(2);
}

/** One line for any failure; a server error keeps its code and request id, which is what support asks for. */
function describe(error) {
  if (error instanceof PorticoApiError) {
    const fields = error.details.fields ? ` ${JSON.stringify(error.details.fields)}` : '';
    return `${error.code}: ${error.message}${fields}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

const env = process.env;
const [kind, name, valuesJson = '{}'] = process.argv.slice(2);
if (!kind || !name) usage('KIND and NAME are required');
if (!env.PORTICO_SERVER) usage('PORTICO_SERVER is not set');
if (!env.PORTICO_TOKEN && !(env.PORTICO_USERNAME && env.PORTICO_PASSWORD)) usage('set PORTICO_TOKEN, or PORTICO_USERNAME and PORTICO_PASSWORD');
let values;
try {
  values = JSON.parse(valuesJson);
} catch {
  usage(`VALUES_JSON is not JSON: ${valuesJson}`);
}
const project = env.PORTICO_PROJECT ?? 'default';
const namespace = env.PORTICO_NAMESPACE ?? 'dev';
const timeoutSeconds = Number(env.PORTICO_TIMEOUT_SECONDS ?? 120);
const label = `${kind}/${name}${namespace ? ` in ${namespace}` : ''}`;

async function main() {
  const baseUrl = env.PORTICO_SERVER;
  const token = env.PORTICO_TOKEN || (await loginLocal(baseUrl, env.PORTICO_USERNAME, env.PORTICO_PASSWORD)).token;
  const portico = createClient({ baseUrl, token });

  // Subscribe before creating, so no event of the new instance can slip by between the two; the `subscribed`
  // control frame (kept out of the iterator unless asked for) says when it is safe to create. A program that
  // only needs the end state can call `portico.waitFor(instance, 'Healthy')` instead.
  const events = portico.events.subscribe(
    { resourceType: 'instances', project, namespace: namespace || undefined, name },
    { controlFrames: true, onError: (e) => console.error(`event stream: ${e.message}`) },
  );
  const timer = setTimeout(() => {
    console.error(`error: ${label} did not become Healthy within ${timeoutSeconds} s`);
    events.close();
    process.exitCode = 1;
  }, timeoutSeconds * 1000);

  /** true once the health is final; throws when it is a failure. */
  let lastHealth;
  const judge = (health) => {
    if (health !== lastHealth) console.log(`health ${health}`);
    lastHealth = health;
    if (health === 'Unhealthy' || health === 'Degraded') throw new Error(`${label} is ${health}`);
    return health === 'Healthy';
  };

  let created = false;
  try {
    for await (const message of events) {
      if (message.type === 'subscribed' && !created) {
        const instance = await portico.instances.create({ kind, name, project, namespace, values });
        created = true;
        console.log(`created ${label} (project ${instance.project}, rgd ${instance.rgdName})`);
      } else if (message.type === 'subscribed') {
        // Subscribed again after a dropped connection: events may have been missed, so read the instance.
        if (judge((await portico.instances.get({ kind, name, namespace })).health)) break;
      } else if (message.type === 'deploy_progress' && message.data.name === name) {
        const { readyResources, totalResources, phase, message: text } = message.data;
        console.log(`progress ${readyResources}/${totalResources} ${phase || 'PENDING'}${text ? `: ${text}` : ''}`);
      } else if (message.type === 'instance_update' && message.data.name === name && message.data.kind === kind) {
        if (message.data.action === 'delete') throw new Error(`${label} was deleted while waiting`);
        if (judge(message.data.instance.health)) break; // leaving the loop closes the subscription
      }
    }
  } finally {
    clearTimeout(timer);
    events.close();
  }
  if (process.exitCode) return;
  const instance = await portico.instances.get({ kind, name, namespace });
  console.log(`${label} is ${instance.health} (state ${instance.status.state}, resourceVersion ${instance.resourceVersion})`);
}

main().catch((error) => {
  console.error(`error: ${describe(error)}`);
  process.exitCode = 1;
});
