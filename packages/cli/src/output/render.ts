import YAML from 'yaml';
import { usageError } from '../exit-codes.js';
import type { Io } from '../io.js';

export const outputFormats = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof outputFormats)[number];

export function outputFormat(value: unknown): OutputFormat {
  const v = value ?? 'table';
  if (!(outputFormats as readonly unknown[]).includes(v)) throw usageError(`invalid output format "${String(v)}" (use table, json or yaml)`);
  return v as OutputFormat;
}

/** Machine formats print `data` as is; the table form is built only when asked for. */
export function formatOutput(format: OutputFormat, data: unknown, table: () => string): string {
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  if (format === 'yaml') return YAML.stringify(data);
  return table();
}

export const print = (io: Io, format: OutputFormat, data: unknown, table: () => string) => io.out(formatOutput(format, data, table));

/** "3m", "2h", "5d" since an RFC 3339 time, like kubectl's AGE. */
export function age(timestamp: string | undefined, now = Date.now()): string {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
