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
