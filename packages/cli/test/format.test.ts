import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { fitWidths, formatOutput, renderDetails, renderTable, truncate, type Column } from '../src/index.js';

interface Row {
  name: string;
  description: string;
}
const columns: Column<Row>[] = [
  { header: 'name', value: (r) => r.name },
  { header: 'description', value: (r) => r.description },
];
const rows: Row[] = [
  { name: 'postgres', description: 'A managed PostgreSQL database with backups, monitoring and point-in-time recovery' },
  { name: 'redis', description: 'In-memory cache' },
];
const ansi = /\u001b\[/;

describe('renderTable', () => {
  it('prints upper-case headers and aligned columns', () => {
    const out = renderTable(columns, rows);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('NAME       DESCRIPTION');
    expect(lines[2]).toBe('redis      In-memory cache');
    expect(lines[1]).toContain('point-in-time recovery'); // no width given: nothing is cut
  });

  it('fits the terminal width, cutting the long column with …', () => {
    const out = renderTable(columns, rows, { width: 40 });
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
    expect(lines[1].startsWith('postgres   A managed')).toBe(true);
    expect(lines[1].endsWith('…')).toBe(true);
    expect(lines[2]).toBe('redis      In-memory cache'); // short cells stay whole
  });

  it('colours only when asked', () => {
    expect(renderTable(columns, rows)).not.toMatch(ansi);
    const coloured = renderTable(columns, rows, { color: true });
    expect(coloured).toMatch(ansi);
    // colour codes do not disturb alignment
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(renderTable(columns, rows));
  });

  it('with headers: false prints the same rows without the header line (--no-headers)', () => {
    const headed = renderTable(columns, rows, { width: 40 });
    const bare = renderTable(columns, rows, { width: 40, headers: false });
    expect(bare).toBe(headed.slice(headed.indexOf('\n') + 1));
    expect(bare.split('\n')[0]).toMatch(/^postgres {3}A managed/);
    // A header wider than every cell still sets its column's width: rows line up with those printed with headers.
    const narrow = [{ name: 'a', description: 'b' }];
    expect(renderTable(columns, narrow, { headers: false })).toBe('a      b\n');
  });

  it('keeps a cell on one line', () => {
    const out = renderTable(columns, [{ name: 'x', description: 'two\nlines' }]);
    expect(out.trimEnd().split('\n')).toHaveLength(2);
  });
});

describe('fitWidths and truncate', () => {
  it('shrinks the widest column first and respects minimums', () => {
    expect(fitWidths([8, 80], 40, [4, 8])).toEqual([8, 32]);
    expect(fitWidths([30, 30], 20, [10, 10])).toEqual([10, 10]);
    expect(fitWidths([5, 5], 100, [3, 3])).toEqual([5, 5]);
  });

  it('cuts with an ellipsis', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
  });
});

describe('formatOutput', () => {
  const data = { items: [{ name: 'postgres', tags: ['sql'] }], totalCount: 1 };
  const table = () => 'TABLE\n';

  it('prints JSON that parses back to the data', () => {
    expect(JSON.parse(formatOutput('json', data, table))).toEqual(data);
  });

  it('prints YAML that parses back to the data', () => {
    expect(YAML.parse(formatOutput('yaml', data, table))).toEqual(data);
  });

  it('builds the table only for the table format', () => {
    expect(formatOutput('table', data, table)).toBe('TABLE\n');
  });
});

describe('renderDetails', () => {
  it('aligns values after the keys', () => {
    expect(renderDetails([['Name', 'a'], ['Description', 'b']])).toBe('Name:         a\nDescription:  b\n');
  });
});

describe('renderTable on a narrow terminal', () => {
  it('keeps the first column (the name) whole while others shrink', () => {
    const wide: Column<Row>[] = [...columns, { header: 'category', value: () => 'databases-and-storage' }];
    const out = renderTable(wide, rows, { width: 30 });
    const lines = out.trimEnd().split('\n');
    expect(lines[1].startsWith('postgres   ')).toBe(true);
    expect(lines[2].startsWith('redis      ')).toBe(true);
  });
});
