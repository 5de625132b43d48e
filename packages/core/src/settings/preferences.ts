import { preferenceLimits, UpdatePreferencesRequest, UserPreferences } from '@portico/api';
import type { Actor } from '../actor.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { PreferencesService } from '../types.js';
import { parseInput } from '../validation.js';

/** How long preferences are kept after the last write (contract §11.5). */
export const PREFERENCES_TTL_MS = 90 * 24 * 60 * 60 * 1000;

const empty = (): UserPreferences => ({ favoriteRgds: [], recentRgds: [] });

/** Newest first as sent: the first occurrence of a name wins, and entries past the limit are dropped. */
const tidy = (names: readonly string[], limit: number): string[] => [...new Set(names)].slice(0, limit);

/**
 * Per-user favourites and recently used RGDs, in the KeyValue store (Redis in production), so every replica
 * answers the same and nothing is kept forever for users who left. A user reads and writes only their own: the
 * key is the caller's subject, never a parameter.
 */
export function createPreferences(kv: KeyValue): PreferencesService {
  const keyOf = (actor: Actor) => `preferences:${actor.subject}`;

  const get = async (actor: Actor): Promise<UserPreferences> => {
    const stored = await kv.get(keyOf(actor));
    if (stored === undefined) return empty();
    let parsed: unknown;
    try {
      parsed = JSON.parse(stored);
    } catch {
      return empty(); // a value this version cannot read is as good as none
    }
    const result = UserPreferences.safeParse(parsed);
    return result.success ? result.data : empty();
  };

  return {
    get,
    async update(actor, body) {
      // Checked here too, so an embedding program gets the same 400 as an HTTP client (names must be RGD names).
      const input = parseInput(UpdatePreferencesRequest, body, 'body');
      const current = input.favoriteRgds && input.recentRgds ? empty() : await get(actor);
      const next: UserPreferences = {
        favoriteRgds: tidy(input.favoriteRgds ?? current.favoriteRgds, preferenceLimits.favoriteRgds),
        recentRgds: tidy(input.recentRgds ?? current.recentRgds, preferenceLimits.recentRgds),
      };
      await kv.set(keyOf(actor), JSON.stringify(next), { ttlMs: PREFERENCES_TTL_MS });
      return next;
    },
  };
}
