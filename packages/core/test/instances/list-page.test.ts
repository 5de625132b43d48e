import type * as api from '@portico/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IndexedInstance } from '../../src/instances/instance-index.js';
import { listPage } from '../../src/instances/list-query.js';

afterEach(() => vi.restoreAllMocks());

const item = (name: string, updatedAt: string, namespace = 'dev'): IndexedInstance =>
  ({
    id: `${namespace}/WebApp/${name}`,
    project: 'alpha',
    instance: { name, namespace, kind: 'WebApp', project: 'alpha', rgdName: 'webapp', health: 'Healthy', createdAt: updatedAt, updatedAt } as api.Instance,
  }) as IndexedInstance;

const query = (extra: Partial<api.InstanceListQuery>): api.InstanceListQuery => ({ page: 1, pageSize: 20, sortBy: 'name', sortOrder: 'asc', ...extra });

describe('instance list pages', () => {
  const items = [
    item('c', '2024-05-01T10:00:00Z'),
    item('a', '2024-05-03T10:00:00Z'),
    item('b', '2024-05-01T10:00:00Z', 'ops'), // same time as c: namespace/kind/name decides
    item('d', 'not a date'),
  ];

  it('sorts by a date, newest first, with a stable tie-break, and pages the result', () => {
    const page = listPage(items, query({ sortBy: 'updatedAt', sortOrder: 'desc' }));
    expect(page.items.map((i) => i.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(page.totalCount).toBe(4);
    const second = listPage(items, query({ sortBy: 'updatedAt', sortOrder: 'asc', page: 2, pageSize: 3 }));
    expect(second.items.map((i) => i.name)).toEqual(['a']);
    expect(second.totalCount).toBe(4);
  });

  it('reads each timestamp once, not once per comparison', () => {
    const many = Array.from({ length: 200 }, (_, i) => item(`i${i}`, new Date(Date.UTC(2024, 0, 1) + ((i * 7919) % 200) * 60_000).toISOString()));
    const parse = vi.spyOn(Date, 'parse');
    const page = listPage(many, query({ sortBy: 'createdAt', pageSize: 500 }));
    expect(parse).toHaveBeenCalledTimes(many.length);
    const times = page.items.map((i) => Date.parse(i.createdAt));
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });
});
