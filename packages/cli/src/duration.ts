import { usageError } from './exit-codes.js';

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5m", "90s", "1h30m", "250ms" or plain seconds → milliseconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of trimmed.matchAll(re)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * unitMs[m[2]];
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== trimmed.length) throw usageError(`invalid duration "${text}" (e.g. 30s, 5m, 1h)`);
  return total;
}

const DAY_MS = 86_400_000;

/** `--since 1h`, `30m`, `7d`: how far back from now, in milliseconds (days on top of parseDuration's units). */
export const lookbackMs = (text: string) => (/^\d+d$/.test(text.trim()) ? Number.parseInt(text, 10) * DAY_MS : parseDuration(text));

/** An RFC 3339 time given to `flag`, normalised to UTC; anything else is a usage error naming the flag. */
export function rfc3339(text: string, flag: string): string {
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw usageError(`${flag} must be an RFC 3339 time (got "${text}")`);
  return new Date(t).toISOString();
}

/** A point in time as `--since` takes it: a duration back from `now` (`7d`, `24h`, `30m`) or an RFC 3339 time. */
export function sinceTime(text: string, flag: string, now = Date.now()): string {
  const t = text.trim();
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(t)) return rfc3339(t, flag);
  try {
    return new Date(now - lookbackMs(t)).toISOString();
  } catch {
    throw usageError(`${flag} must be a duration such as 7d, 24h, 30m or an RFC 3339 time (got "${text}")`);
  }
}
