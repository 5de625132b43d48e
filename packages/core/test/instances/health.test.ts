import { describe, expect, it } from 'vitest';
import { instanceHealth } from '../../src/instances/health.js';
import type { KubeObject } from '../../src/ports/cluster.js';

const ready = (status: string, reason = 'x', observedGeneration?: number) => ({
  type: 'Ready',
  status,
  reason,
  ...(observedGeneration !== undefined ? { observedGeneration } : {}),
});

const obj = (status: unknown, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'WebApp',
  metadata: { name: 'shop', generation: 1, ...meta },
  ...(status === undefined ? {} : { status }),
});

describe('instance health from kro status', () => {
  it.each([
    ['no status at all', undefined, 'Unknown'],
    ['an empty status', {}, 'Unknown'],
    ['IN_PROGRESS without Ready', { state: 'IN_PROGRESS' }, 'Progressing'],
    ['ACTIVE without Ready', { state: 'ACTIVE' }, 'Healthy'],
    ['ERROR without Ready', { state: 'ERROR' }, 'Unhealthy'],
    ['DELETING without Ready', { state: 'DELETING' }, 'Progressing'],
    ['an unknown state', { state: 'SOMETHING' }, 'Unknown'],
    ['Ready True', { state: 'ACTIVE', conditions: [ready('True', 'AllResourcesReady', 1)] }, 'Healthy'],
    ['Ready True wins over a state', { state: 'IN_PROGRESS', conditions: [ready('True')] }, 'Healthy'],
    ['Ready False while IN_PROGRESS', { state: 'IN_PROGRESS', conditions: [ready('False', 'Progressing', 1)] }, 'Progressing'],
    ['Ready False while ACTIVE', { state: 'ACTIVE', conditions: [ready('False', 'ResourceFailed', 1)] }, 'Degraded'],
    ['Ready False in ERROR', { state: 'ERROR', conditions: [ready('False', 'ResourceFailed', 1)] }, 'Unhealthy'],
    ['Ready False, no state, resource failed', { conditions: [ready('False', 'ResourceFailed')] }, 'Unhealthy'],
    ['Ready False, no state, progressing', { conditions: [ready('False', 'Progressing')] }, 'Progressing'],
    ['Ready False while DELETING', { state: 'DELETING', conditions: [ready('False', 'Deleting', 1)] }, 'Progressing'],
    ['Ready Unknown', { state: 'ACTIVE', conditions: [ready('Unknown')] }, 'Progressing'],
  ])('%s → %s', (_label, status, expected) => {
    expect(instanceHealth(obj(status))).toBe(expected);
  });

  it('treats a Ready condition for an older generation as stale (Progressing), a current one as final', () => {
    const status = { state: 'ACTIVE', conditions: [ready('True', 'AllResourcesReady', 1)] };
    expect(instanceHealth(obj(status, { generation: 2 }))).toBe('Progressing');
    expect(instanceHealth(obj(status, { generation: 1 }))).toBe('Healthy');
    // A condition without observedGeneration cannot be judged stale.
    expect(instanceHealth(obj({ state: 'ACTIVE', conditions: [ready('True')] }, { generation: 5 }))).toBe('Healthy');
  });

  it('calls an instance on its way out Progressing, whatever Ready says', () => {
    const status = { state: 'ACTIVE', conditions: [ready('True', 'AllResourcesReady', 1)] };
    expect(instanceHealth(obj(status, { deletionTimestamp: '2025-01-01T00:00:00Z' }))).toBe('Progressing');
  });
});
