import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesDir, sources, type SourceFile } from './support/sources.js';

// Files import in one direction: a file that imports what imports it (type-only imports included, as in
// api/src/enterprise once: the rows of each family and the table that gathers them) can only be read, split or
// loaded as one.
const checked = ['api/src', 'core/src', 'server/src', 'client/src', 'cli/src', 'enterprise/src'];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g;

/** A relative specifier as the file it names (`./x.js` → x.ts, `./dir/index.js`), packages-relative; undefined outside the set. */
function target(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const base = relative(packagesDir, join(packagesDir, dirname(from), specifier)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => files.has(candidate));
}

/** The groups of files that import one another, directly or round about (strongly connected, more than one file). */
function importCycles(list: readonly SourceFile[]): string[][] {
  const files = new Set(list.map((s) => s.file));
  const edges = new Map(list.map((s) => [s.file, [...s.text.matchAll(SPECIFIER)].flatMap((m) => target(s.file, m[1]!, files) ?? [])]));
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

describe('no import cycles', () => {
  it('finds a cycle of type-only imports, and one through an index file', () => {
    const rows = { file: 'api/src/enterprise/audit.ts', text: "import type { EnterpriseRouteDef } from './routes.js';" };
    const table = { file: 'api/src/enterprise/routes.ts', text: "import { auditRoutes } from './audit.js';" };
    expect(importCycles([rows, table])).toEqual([['api/src/enterprise/audit.ts', 'api/src/enterprise/routes.ts']]);
    const barrel = { file: 'enterprise/src/audit/index.ts', text: "export * from './service.js';" };
    const service = { file: 'enterprise/src/audit/service.ts', text: "import { x } from '../audit/index.js';\nconst y = await import('./index.js');" };
    expect(importCycles([barrel, service])).toHaveLength(1);
    expect(importCycles([rows, { ...table, text: "import type { EnterpriseRouteDef } from './route-def.js';" }])).toEqual([]);
  });

  it.each(checked)('%s: no file imports what imports it', (dir) => {
    const list = sources(dir);
    expect(list.length).toBeGreaterThan(0);
    expect(importCycles(list)).toEqual([]);
  });
});
