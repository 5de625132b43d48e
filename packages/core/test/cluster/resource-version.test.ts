import { describe, expect, it } from 'vitest';
import { isLaterVersion, reached } from '../../src/cluster/resource-version.js';
import type { KubeObject } from '../../src/ports/cluster.js';

const obj = (resourceVersion: string, deleting = false): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', resourceVersion, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
});

describe('reached: has a cache caught up with a write', () => {
  it('counts the written version and any later one, numerically (10 is after 9)', () => {
    expect(reached(obj('9'), { resourceVersion: '9' })).toBe(true);
    expect(reached(obj('10'), { resourceVersion: '9' })).toBe(true);
    expect(reached(obj('8'), { resourceVersion: '9' })).toBe(false);
    expect(reached(undefined, { resourceVersion: '9' })).toBe(false);
  });

  it('treats non-numeric versions as opaque: only the same string has been reached', () => {
    expect(reached(obj('b'), { resourceVersion: 'a' })).toBe(false);
    expect(reached(obj('a'), { resourceVersion: 'a' })).toBe(true);
    expect(isLaterVersion('b', 'a')).toBe(false);
  });

  it('sees a deletion once the object is gone or finalizing', () => {
    expect(reached(undefined, { deleted: true })).toBe(true);
    expect(reached(obj('3', true), { deleted: true })).toBe(true);
    expect(reached(obj('3'), { deleted: true })).toBe(false);
  });
});
