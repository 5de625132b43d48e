import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/actor.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { projectActorFromClaims } from '../../src/auth/project-token-jwt.js';
import type { Informer } from '../../src/cluster/informer-types.js';
import type { Cluster, KubeObject } from '../../src/ports/cluster.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import { createProjectTokens } from '../../src/projects/project-tokens.js';
import { TOKENS_ANNOTATION } from '../../src/projects/token-records.js';
import type { Authorizer } from '../../src/types.js';

// The check a project token passes on every request (§14): answered from the replica's copy of the project, with
// its use written to the shared store at most once a minute, never once per request.

const namespace = 'portico';
const issuedAtSeconds = 1_700_000_000;

/** A Project holding token `id` of role `developer`. */
const projectWith = (id: string): KubeObject => ({
  apiVersion: 'portico.dev/v1alpha1',
  kind: 'Project',
  metadata: {
    name: 'shop',
    namespace,
    resourceVersion: '7',
    annotations: { [TOKENS_ANNOTATION]: JSON.stringify([{ id, role: 'developer', description: '', issuedAt: new Date(issuedAtSeconds * 1000).toISOString(), createdBy: 'admin' }]) },
  },
  spec: { roles: [{ name: 'developer', policies: [], users: [], groups: [] }] },
});

const tokenActor = (id: string): Actor =>
  projectActorFromClaims({ sub: 'proj:shop:developer', jti: id, iss: 'portico', iat: issuedAtSeconds, project: 'shop', role: 'developer' })!;

function setup(ids: string[]) {
  let clock = issuedAtSeconds * 1000 + 3_600_000;
  const objects = new Map(ids.map((id) => [id, projectWith(id)]));
  let current = projectWith(ids[0]!);
  const inner = createMemoryKeyValue();
  const writes: string[] = [];
  const kv: KeyValue = { ...inner, set: (key, value, opts) => (writes.push(key), inner.set(key, value, opts)) };
  let clusterReads = 0;
  const cluster = {
    get: async () => {
      clusterReads++;
      return current;
    },
  } as unknown as Cluster;
  const tokens = createProjectTokens({
    cluster,
    projects: { get: () => current } as unknown as Informer,
    namespace,
    authz: {} as Authorizer,
    kv,
    auth: () => {
      throw new Error('not used');
    },
    now: () => clock,
  });
  return {
    valid: tokens.valid,
    writes,
    clusterReads: () => clusterReads,
    holding: (id: string) => void (current = objects.get(id)!),
    advance: (ms: number) => void (clock += ms),
  };
}

describe('project token check', () => {
  it('accepts a token its project records from the replica\'s copy, without reading the cluster', async () => {
    const t = setup(['t1']);
    const actor = tokenActor('t1');
    for (let i = 0; i < 100; i++) expect(await t.valid(actor)).toBe(true);
    expect(t.clusterReads()).toBe(0);
  });

  it('writes a token\'s last use once a minute, however many requests it makes', async () => {
    const t = setup(['t1']);
    const actor = tokenActor('t1');
    for (let i = 0; i < 100; i++) await t.valid(actor);
    expect(t.writes).toEqual(['project-token-used:t1']);
    t.advance(59_000);
    for (let i = 0; i < 100; i++) await t.valid(actor);
    expect(t.writes).toHaveLength(1);
    t.advance(1_000);
    await t.valid(actor);
    expect(t.writes).toEqual(['project-token-used:t1', 'project-token-used:t1']);
  });

  it('keeps each token\'s minute apart: another token\'s requests neither write for it nor hold back its write', async () => {
    const t = setup(['t1', 't2']);
    await t.valid(tokenActor('t1'));
    t.holding('t2');
    for (let i = 0; i < 10; i++) await t.valid(tokenActor('t2'));
    expect(t.writes).toEqual(['project-token-used:t1', 'project-token-used:t2']);
  });
});
