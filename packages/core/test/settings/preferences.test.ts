import { preferenceLimits } from '@portico/api';
import { describe, expect, it } from 'vitest';
import { systemActor } from '../../src/actor.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { isPorticoError } from '../../src/errors.js';
import { loadConfig } from '../../src/config.js';
import { createPreferences, PREFERENCES_TTL_MS } from '../../src/settings/preferences.js';

const day = 24 * 60 * 60 * 1000;
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('user preferences (§11.5)', () => {
  const setup = () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const kv = createMemoryKeyValue({ now: () => now });
    return { preferences: createPreferences(kv), advance: (ms: number) => (now += ms) };
  };
  const alice = systemActor('alice');
  const bob = systemActor('bob');

  it('starts empty: both lists are [] for a user who never stored any', async () => {
    expect(await setup().preferences.get(alice)).toEqual({ favoriteRgds: [], recentRgds: [] });
  });

  it('keeps the order sent (newest first), drops repeats, and cuts the lists at 10 and 20', async () => {
    const { preferences } = setup();
    const stored = await preferences.update(alice, {
      favoriteRgds: ['web-app', 'redis-cache', 'web-app', ...names('fav', 15)],
      recentRgds: [...names('recent', 25), 'recent-0'],
    });
    expect(stored.favoriteRgds).toEqual(['web-app', 'redis-cache', ...names('fav', 8)]);
    expect(stored.favoriteRgds).toHaveLength(preferenceLimits.favoriteRgds);
    expect(stored.recentRgds).toEqual(names('recent', 20));
    expect(await preferences.get(alice)).toEqual(stored);
  });

  it('a list left out keeps what is stored; each user has their own', async () => {
    const { preferences } = setup();
    await preferences.update(alice, { favoriteRgds: ['web-app'], recentRgds: ['postgres-database'] });
    expect(await preferences.update(alice, { recentRgds: ['redis-cache', 'postgres-database'] })).toEqual({ favoriteRgds: ['web-app'], recentRgds: ['redis-cache', 'postgres-database'] });
    expect(await preferences.get(bob)).toEqual({ favoriteRgds: [], recentRgds: [] });
  });

  it('keeps them for 90 days after the last write, then forgets them', async () => {
    const { preferences, advance } = setup();
    await preferences.update(alice, { favoriteRgds: ['web-app'] });
    advance(60 * day);
    await preferences.update(alice, { recentRgds: ['redis-cache'] }); // a write starts the 90 days again
    advance(89 * day);
    expect(await preferences.get(alice)).toEqual({ favoriteRgds: ['web-app'], recentRgds: ['redis-cache'] });
    advance(PREFERENCES_TTL_MS - 89 * day);
    expect(await preferences.get(alice)).toEqual({ favoriteRgds: [], recentRgds: [] });
  });

  it('refuses names that are not RGD names (DNS-1123), naming each, and stores nothing', async () => {
    const { preferences } = setup();
    const err = await preferences.update(alice, { favoriteRgds: ['web-app', 'Not An RGD'], recentRgds: ['../etc'] }).catch((e: unknown) => e);
    expect(isPorticoError(err) && err.code).toBe('VALIDATION_FAILED');
    expect(isPorticoError(err) && Object.keys(err.details.fields as object).sort()).toEqual(['favoriteRgds.1', 'recentRgds.0']);
    expect(await preferences.get(alice)).toEqual({ favoriteRgds: [], recentRgds: [] });
  });
});

describe('PORTICO_ORGANIZATION (§11.5)', () => {
  it('defaults to "default" and takes up to 63 printable characters', () => {
    expect(loadConfig({}).organization).toBe('default');
    expect(loadConfig({ PORTICO_ORGANIZATION: 'Acme Corp — Plateforme' }).organization).toBe('Acme Corp — Plateforme');
    expect(loadConfig({ PORTICO_ORGANIZATION: 'x'.repeat(63) }).organization).toHaveLength(63);
  });

  it.each([
    ['64 characters', 'x'.repeat(64)],
    ['empty', ''],
    ['a newline', 'Acme\nCorp'],
    ['a control character', 'Acme\u0007'],
    ['an invisible format character', 'Acme\u202eCorp'],
  ])('refuses %s at start, naming the variable', (_what, value) => {
    expect(() => loadConfig({ PORTICO_ORGANIZATION: value })).toThrow(/PORTICO_ORGANIZATION/);
  });
});
