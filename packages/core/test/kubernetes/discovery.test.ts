import { describe, expect, it } from 'vitest';
import { createDiscovery, type ApiResource } from '../../src/adapters/kubernetes/discovery.js';

describe('Kubernetes discovery cache', () => {
  const setup = (lists: Record<string, ApiResource[] | undefined>) => {
    let clock = 0;
    const calls: string[] = [];
    const discovery = createDiscovery(
      async (group, version) => {
        calls.push(`${group}/${version}`);
        return lists[`${group}/${version}`];
      },
      { ttlMs: 30_000, missRefreshMs: 1_000, now: () => clock },
    );
    return { discovery, calls, advance: (ms: number) => (clock += ms) };
  };

  it('skips subresources that carry the kind of their parent', async () => {
    const { discovery } = setup({
      'example.com/v1': [
        { name: 'widgets/status', kind: 'Widget', namespaced: false },
        { name: 'widgets', kind: 'Widget', namespaced: true },
      ],
    });
    expect(await discovery.discover('example.com', 'v1', 'Widget')).toEqual({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
    });
  });

  it('trusts a list for the TTL, then asks again', async () => {
    const lists: Record<string, ApiResource[] | undefined> = { 'example.com/v1': [{ name: 'widgets', kind: 'Widget', namespaced: true }] };
    const { discovery, calls, advance } = setup(lists);
    await discovery.discover('example.com', 'v1', 'Widget');
    advance(29_000);
    lists['example.com/v1'] = [];
    expect(await discovery.discover('example.com', 'v1', 'Widget')).toBeDefined();
    advance(2_000);
    expect(await discovery.discover('example.com', 'v1', 'Widget')).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('looks a missing kind up again only once the list is older than the miss interval', async () => {
    const lists: Record<string, ApiResource[] | undefined> = { 'example.com/v1': [] };
    const { discovery, calls, advance } = setup(lists);
    expect(await discovery.discover('example.com', 'v1', 'Widget')).toBeUndefined();
    expect(await discovery.discover('example.com', 'v1', 'Widget')).toBeUndefined();
    expect(calls).toHaveLength(1);
    lists['example.com/v1'] = [{ name: 'widgets', kind: 'Widget', namespaced: false }];
    advance(1_000);
    expect(await discovery.discover('example.com', 'v1', 'Widget')).toMatchObject({ plural: 'widgets', namespaced: false });
    expect(calls).toHaveLength(2);
  });

  it('shares one request between concurrent lookups of a group/version', async () => {
    const { discovery, calls } = setup({ 'example.com/v1': [{ name: 'widgets', kind: 'Widget', namespaced: true }] });
    await Promise.all([discovery.discover('example.com', 'v1', 'Widget'), discovery.discover('example.com', 'v1', 'Gadget')]);
    expect(calls).toHaveLength(1);
  });

  it('answers undefined for a group/version that is not served', async () => {
    const { discovery } = setup({});
    expect(await discovery.discover('nope.io', 'v1', 'Thing')).toBeUndefined();
  });
});
