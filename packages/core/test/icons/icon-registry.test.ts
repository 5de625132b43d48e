import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { isPorticoError } from '../../src/errors.js';
import { genericIcons } from '../../src/icons/generic-icons.js';
import { createIconRegistry, slugOfKey } from '../../src/icons/icon-registry.js';
import { sanitizeSvg } from '../../src/icons/sanitize-svg.js';
import { createLogger } from '../../src/logger.js';
import { resources, type KubeObject } from '../../src/ports/cluster.js';

const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${inner}</svg>`;
const namespace = 'portico';

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = { 'portico.dev/icon-registry': 'true' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data,
});

const eventually = async (check: () => boolean, what: string, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("Portico's generic icons", () => {
  it('each passes the SVG check unchanged in meaning, and the set covers the usual ideas', () => {
    for (const [slug, text] of Object.entries(genericIcons)) expect(sanitizeSvg(text).ok, slug).toBe(true);
    for (const slug of ['database', 'cache', 'queue', 'web', 'job', 'network', 'storage']) expect(genericIcons[slug], slug).toBeDefined();
  });
});

describe('icon slugs of ConfigMap keys', () => {
  it.each([
    ['database', 'database'],
    ['database.svg', 'database'],
    ['cat.databases', 'cat:databases'],
    ['cat.web-apps.svg', 'cat:web-apps'],
    ['Database', undefined],
    ['my_icon', undefined],
    ['a.b', undefined],
  ])('%s → %s', (key, slug) => expect(slugOfKey(key)).toBe(slug));
});

describe('the icon registry over the Cluster port', () => {
  let cluster: EmbeddedCluster | undefined;
  afterEach(async () => cluster?.close());

  const start = async () => {
    cluster = await createEmbeddedCluster({ kroStepMs: 0 });
    await cluster.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const logs: Record<string, unknown>[] = [];
    const stream = new Writable({ write: (chunk, _enc, done) => (logs.push(JSON.parse(String(chunk))), done()) });
    const icons = createIconRegistry({ cluster, namespace, logger: createLogger('info', stream) });
    icons.start();
    const has = (slug: string) => {
      try {
        return icons.get(slug);
      } catch (err) {
        if (isPorticoError(err) && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    };
    return { cluster, icons, has, logs };
  };

  it('serves a labelled ConfigMap\'s icons as they change, and stops when it goes or loses its label', async () => {
    const { cluster, has } = await start();
    await cluster.create(resources.configMap, configMap('team-icons', { rocket: svg('<path d="M1 1"/>'), 'cat.databases': svg('<circle r="2"/>') }));
    await eventually(() => has('rocket') !== undefined, 'the rocket icon');
    expect(has('cat:databases')).toContain('<circle r="2"/>');
    await cluster.patch(resources.configMap, 'team-icons', { data: { rocket: svg('<rect width="3" height="3"/>') } }, { namespace });
    await eventually(() => has('rocket')?.includes('<rect') === true, 'the changed rocket');
    await cluster.patch(resources.configMap, 'team-icons', { metadata: { labels: { 'portico.dev/icon-registry': null } } }, { namespace });
    await eventually(() => has('rocket') === undefined, 'the unlabelled registry to be dropped');
    await cluster.create(resources.configMap, configMap('field-icons', { rocket: svg('<path d="M2 2"/>') }, { 'knodex.io/icon-registry': 'true' }));
    await eventually(() => has('rocket') !== undefined, 'the knodex.io-labelled registry');
    await cluster.delete(resources.configMap, 'field-icons', namespace);
    await eventually(() => has('rocket') === undefined, 'the deleted registry to be dropped');
  });

  it('ignores ConfigMaps without the label, and other namespaces', async () => {
    const { cluster, has } = await start();
    await cluster.create(resources.configMap, configMap('plain', { plain: svg('<path d="M1 1"/>') }, {}));
    await cluster.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } });
    await cluster.create(resources.configMap, { ...configMap('elsewhere', { away: svg('<path d="M1 1"/>') }), metadata: { name: 'elsewhere', namespace: 'elsewhere', labels: { 'portico.dev/icon-registry': 'true' } } });
    await cluster.create(resources.configMap, configMap('marker', { marker: svg('<path d="M1 1"/>') }));
    await eventually(() => has('marker') !== undefined, 'the marker registry');
    expect(has('plain')).toBeUndefined();
    expect(has('away')).toBeUndefined();
  });

  it('a registry icon replaces the generic one of its slug; between registries the first by name wins', async () => {
    const { cluster, has } = await start();
    expect(has('database')).toBe(genericIcons.database);
    await cluster.create(resources.configMap, configMap('b-icons', { database: svg('<path d="M9 9"/>') }));
    await cluster.create(resources.configMap, configMap('a-icons', { database: svg('<path d="M1 1"/>') }));
    await eventually(() => has('database')?.includes('M1 1') === true, 'a-icons to win');
  });

  it('never serves what an own property of a plain object would give', async () => {
    const { has } = await start();
    for (const slug of ['constructor', 'tostring', 'hasownproperty']) expect(has(slug)).toBeUndefined();
  });

  it('refuses a hostile SVG, logs each with its reason, and keeps the good ones of the same ConfigMap', async () => {
    const { cluster, has, logs } = await start();
    await cluster.create(resources.configMap, configMap('mixed', { good: svg('<path d="M1 1"/>'), evil: svg('<script>alert(1)</script>'), 'Bad_Key': svg('<path d="M1 1"/>') }));
    await eventually(() => has('good') !== undefined, 'the good icon');
    expect(has('evil')).toBeUndefined();
    expect(logs).toContainEqual(expect.objectContaining({ configMap: 'mixed', key: 'evil', reason: 'a <script> element', msg: 'icon refused by the SVG check' }));
    expect(logs).toContainEqual(expect.objectContaining({ configMap: 'mixed', key: 'Bad_Key' }));
  });
});
