import { describe, expect, it } from 'vitest';
import { createSortedViews, type Sortable } from '../../src/instances/sorted-views.js';

const item = (name: string, updatedAt: string, namespace = 'dev', project = 'alpha'): Sortable & { name: string } => ({
  name,
  id: `${namespace}/WebApp/${name}`,
  project,
  instance: { namespace, kind: 'WebApp', rgdName: 'webapp', health: 'Healthy' },
  sortKeys: { name, namespace, kind: 'WebApp', project, health: 'Healthy', createdAt: Date.parse(updatedAt) || 0, updatedAt: Date.parse(updatedAt) || 0 },
});

describe('sorted instance views', () => {
  const items = [
    item('c', '2024-05-01T10:00:00Z'),
    item('a', '2024-05-03T10:00:00Z'),
    item('b', '2024-05-01T10:00:00Z', 'ops'), // same time as c: the id (namespace/kind/name) decides
    item('d', 'not a date'),
  ];

  it('orders by the sort key with a stable tie-break; read backwards it is the descending order', () => {
    const views = createSortedViews<(typeof items)[number]>();
    const view = views.view({ sortBy: 'updatedAt' }, () => items);
    expect(view.items.map((i) => i.name)).toEqual(['d', 'c', 'b', 'a']);
    expect([...view.items].reverse().map((i) => i.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps every view current on changes, holding only what its projects and filters accept', () => {
    const views = createSortedViews<(typeof items)[number]>();
    const all = views.view({ sortBy: 'name' }, () => items);
    const ops = views.view({ sortBy: 'updatedAt', namespace: 'ops' }, () => items);
    const beta = views.view({ sortBy: 'name', projects: ['beta'] }, () => items);
    const moved = item('b', '2024-06-01T10:00:00Z', 'ops', 'beta');
    views.update(items[2], moved);
    const added = item('e', '2024-01-01T00:00:00Z', 'ops');
    views.update(undefined, added);
    views.update(items[0], undefined);
    expect(all.items.map((i) => i.name)).toEqual(['a', 'b', 'd', 'e']);
    expect(all.items[1]).toBe(moved);
    expect(ops.items.map((i) => i.name)).toEqual(['e', 'b']);
    expect(beta.items).toEqual([moved]);
  });

  it('a change that keeps its place is seen where it stood, and the views it left or joined follow', () => {
    const views = createSortedViews<(typeof items)[number]>();
    const byName = views.view({ sortBy: 'name' }, () => items);
    const byTime = views.view({ sortBy: 'updatedAt' }, () => items);
    const healthy = views.view({ sortBy: 'name', health: 'Healthy' }, () => items);
    const before = { byName: byName.version, byTime: byTime.version, healthy: healthy.version };
    // c's status moved on: a new time and a new health, the same name.
    const c = items[0];
    const changed = { ...c, instance: { ...c.instance, health: 'Degraded' as const }, sortKeys: { ...c.sortKeys, health: 'Degraded', updatedAt: Date.parse('2024-07-01T00:00:00Z') } };
    views.update(c, changed);
    expect(byName.items.map((i) => i.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(byName.items[2]).toBe(changed);
    expect(byName.version).toBeGreaterThan(before.byName);
    expect(byTime.items.map((i) => i.name)).toEqual(['d', 'b', 'a', 'c']);
    expect(byTime.items[3]).toBe(changed);
    expect(byTime.version).toBeGreaterThan(before.byTime);
    expect(healthy.items.map((i) => i.name)).toEqual(['a', 'b', 'd']);
    expect(healthy.version).toBeGreaterThan(before.healthy);
    // The same item again, unchanged in every key: still one entry per view, the newest object.
    const again = { ...changed };
    views.update(changed, again);
    expect(byName.items.filter((i) => i.name === 'c')).toEqual([again]);
    expect(byTime.items.filter((i) => i.name === 'c')).toEqual([again]);
  });
});
