import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from './support/import-graph.js';

// The OSS build must contain no Enterprise code at all (contract §8): neither the Enterprise package nor the
// PostgreSQL driver may be reachable from what `portico-server` loads. Runs on the BUILT dist (npm test builds).
const root = fileURLToPath(new URL('../../../', import.meta.url));
/** `@portico/<pkg>[/<subpath>]` → that package's built entry (subpaths build to dist/<subpath>/index.js). */
const workspaceDist = (specifier: string) => {
  const match = /^@portico\/(api|core|server|client|cli|enterprise)(?:\/([a-z-]+))?$/.exec(specifier);
  return match ? `${root}packages/${match[1]}/dist/${match[2] ? `${match[2]}/` : ''}index.js` : undefined;
};
const forbiddenPackages = (packages: Set<string>) => [...packages].filter((p) => p === '@portico/enterprise' || p === 'pg' || p.startsWith('pg-') || p === 'node-pg-migrate').sort();
const enterpriseFiles = (files: Set<string>) => [...files].filter((f) => f.includes('/packages/enterprise/') || f.includes('/packages/api/dist/enterprise/'));

const ossEntries = ['packages/server/dist/bin.js', 'packages/server/dist/index.js', 'packages/server/dist/openapi-cli.js'].map((p) => `${root}${p}`);

describe('OSS purity: the OSS server build reaches no Enterprise code', () => {
  it('the built OSS server exists (run `npm run build` first)', () => {
    for (const entry of ossEntries) expect(existsSync(entry), entry).toBe(true);
  });

  it('no Enterprise module, pg or node-pg-migrate in the import graph of portico-server', () => {
    const graph = importGraph(ossEntries, workspaceDist);
    expect(graph.packages.has('@portico/core')).toBe(true);
    expect(graph.packages.has('ioredis')).toBe(true);
    expect(forbiddenPackages(graph.packages)).toEqual([]);
    expect(enterpriseFiles(graph.files)).toEqual([]);
  });

  it('no Enterprise route or license code in the OSS dist text', () => {
    const graph = importGraph(ossEntries, workspaceDist);
    const workspaceFiles = [...graph.files].filter((f) => f.includes('/packages/'));
    const leaks = workspaceFiles.filter((f) => /portico-server-enterprise|@portico\/enterprise|applyLicense|issue-license|LICENSE_KEYS/.test(readFileSync(f, 'utf8')));
    expect(leaks).toEqual([]);
  });

  it('the same walk does find Enterprise code and pg from the Enterprise bin (the check is not vacuous)', () => {
    const graph = importGraph([`${root}packages/enterprise/dist/bin.js`], workspaceDist);
    expect(forbiddenPackages(graph.packages)).toEqual(expect.arrayContaining(['node-pg-migrate', 'pg']));
    const reached = enterpriseFiles(graph.files);
    expect(reached.some((f) => f.includes('/packages/enterprise/dist/'))).toBe(true);
    expect(reached.some((f) => f.includes('/packages/api/dist/enterprise/'))).toBe(true);
  });
});
