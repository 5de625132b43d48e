import { palette, type Palette } from './color.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Colours a (possibly truncated) cell; applied after measuring so widths stay right. */
  style?: (text: string, p: Palette) => string;
  /** Shown only with `-o wide`. */
  wide?: boolean;
}

export interface TableOptions {
  /** Terminal width; undefined means no limit. */
  width?: number;
  color?: boolean;
  /** Include the `wide` columns. */
  wide?: boolean;
  /** false: the rows alone, laid out as under the header line (`--no-headers`). */
  headers?: boolean;
}

const GAP = '   ';

/** Length in code points (what a terminal shows for the text Portico prints, no wide CJK handling). */
const visibleLength = (s: string) => [...s].length;

/** Cuts `text` to `width` columns, ending with … when something was cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 0) return '';
  return `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * Column widths that fit `available`: the widest column gives up a character at a time, so short columns
 * (names, health) keep their full text and long ones (descriptions) absorb the cut, down to `minimum` each.
 */
export function fitWidths(natural: number[], available: number, minimum: number[]): number[] {
  const widths = natural.slice();
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i] > minimum[i] && (widest === -1 || widths[i] > widths[widest])) widest = i;
    }
    if (widest === -1) break;
    widths[widest]--;
    total--;
  }
  return widths;
}

/**
 * A kubectl-style table: upper-case headers, columns separated by three spaces, sized to the terminal. Without
 * headers the columns keep the widths the header line would give them, so the rows are the same either way.
 */
export function renderTable<Row>(allColumns: Column<Row>[], rows: Row[], options: TableOptions = {}): string {
  const columns = options.wide ? allColumns : allColumns.filter((c) => !c.wide);
  const p = palette(options.color === true);
  const clean = (s: string) => s.replace(/[\r\n\t]+/g, ' ');
  const cells = rows.map((row) => columns.map((c) => clean(c.value(row) ?? '')));
  const headers = columns.map((c) => c.header.toUpperCase());
  const natural = columns.map((_, i) => Math.max(visibleLength(headers[i]), ...cells.map((r) => visibleLength(r[i]))));
  let widths = natural;
  if (options.width !== undefined) {
    const available = options.width - GAP.length * (columns.length - 1);
    // The first column names the row, so it keeps up to 30 characters; the others may shrink to about their header.
    const minimum = natural.map((n, i) => Math.min(n, i === 0 ? 30 : Math.max(3, Math.min(visibleLength(headers[i]), 8))));
    widths = fitWidths(natural, available, minimum);
  }
  const line = (texts: string[], style: (text: string, i: number) => string) =>
    texts
      .map((text, i) => {
        const cut = truncate(text, widths[i]);
        const pad = i === texts.length - 1 ? '' : ' '.repeat(widths[i] - visibleLength(cut));
        return style(cut, i) + pad;
      })
      .join(GAP)
      .trimEnd();
  const out = options.headers === false ? [] : [line(headers, (t) => p.bold(t))];
  for (const row of cells) out.push(line(row, (t, i) => (columns[i].style ? columns[i].style!(t, p) : t)));
  return `${out.join('\n')}\n`;
}

/** `Key:   value` lines for one object. */
export function renderDetails(pairs: [string, string][], options: TableOptions = {}): string {
  const p = palette(options.color === true);
  const width = Math.max(0, ...pairs.map(([k]) => visibleLength(k) + 1));
  return pairs.map(([k, v]) => `${p.bold(`${k}:`)}${' '.repeat(width - visibleLength(k) - 1 + 2)}${v}`).join('\n') + '\n';
}
