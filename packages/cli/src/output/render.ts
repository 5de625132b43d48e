import YAML from 'yaml';
import { usageError } from '../exit-codes.js';
import type { Io } from '../io.js';
import { renderJsonPath } from './jsonpath.js';

/** What `-o` accepts, as its help shows it. */
export const outputFormats = ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath=TEMPLATE'] as const;
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name' | `jsonpath=${string}`;

export function outputFormat(value: unknown): OutputFormat {
  const v = value ?? 'table';
  if (typeof v === 'string' && (['table', 'wide', 'json', 'yaml', 'name'].includes(v) || /^jsonpath=.+/s.test(v))) return v as OutputFormat;
  throw usageError(`invalid output format "${String(v)}" (use ${outputFormats.join(', ')})`);
}

/** How a command shows its data to people: a table (with more columns when wide), and the objects' names. */
interface View {
  table: (wide: boolean) => string;
  /** `kind/name` of every object printed, for `-o name`; commands without it refuse `-o name`. */
  names?: () => string[];
}

/** Machine formats print `data` as is; the table form is built only when asked for. */
export function formatOutput(format: OutputFormat, data: unknown, view: View | (() => string)): string {
  const { table, names } = typeof view === 'function' ? { table: view, names: undefined } : view;
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  if (format === 'yaml') return YAML.stringify(data);
  if (format.startsWith('jsonpath=')) return renderJsonPath(format.slice('jsonpath='.length), data);
  if (format === 'name') {
    if (!names) throw usageError('-o name is not available for this command');
    return names().map((n) => `${n}\n`).join('');
  }
  return table(format === 'wide');
}

export const print = (io: Io, format: OutputFormat, data: unknown, view: View | (() => string)) => io.out(formatOutput(format, data, view));

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
