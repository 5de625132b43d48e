import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** What an entry file can reach: the files it loads and every npm package in their dependency closure. */
export interface ImportGraph {
  files: Set<string>;
  packages: Set<string>;
}

const SPECIFIERS = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  // A package loaded on first use (`createRequire(import.meta.url)('ioredis')`, renamed by the bundler) is reachable too.
  /\bcreateRequire\d*\s*\([^)]*\)\s*\(\s*["']([^"']+)["']\s*\)/g,
];

const packageName = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);

/** node_modules lookup from `fromDir` upwards, as Node resolves a bare specifier. */
function packageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * A static walk: relative imports and workspace packages (`@portico/*`, resolved to their built dist) are
 * followed file by file; any other package is followed through its package.json dependencies, so a package
 * that pulls in `pg` three levels down is still found.
 */
export function importGraph(entries: string[], workspaceDist: (name: string) => string | undefined): ImportGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const fileQueue = entries.map((e) => resolve(e));
  const packageQueue: Array<{ name: string; from: string }> = [];
  while (fileQueue.length > 0) {
    const file = fileQueue.pop()!;
    if (files.has(file) || !existsSync(file)) continue;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const pattern of SPECIFIERS) {
      for (const [, specifier] of text.matchAll(pattern)) {
        if (specifier.startsWith('node:')) continue;
        if (specifier.startsWith('.')) {
          fileQueue.push(resolve(dirname(file), specifier));
          continue;
        }
        const name = packageName(specifier);
        const dist = workspaceDist(specifier);
        if (dist) {
          packages.add(name);
          fileQueue.push(dist);
        } else packageQueue.push({ name, from: dirname(file) });
      }
    }
  }
  const seenDirs = new Set<string>();
  while (packageQueue.length > 0) {
    const { name, from } = packageQueue.pop()!;
    const dir = packageDir(name, from);
    if (!dir) continue; // a Node built-in without the node: prefix, or an optional dependency not installed
    packages.add(name);
    if (seenDirs.has(dir)) continue;
    seenDirs.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies })) packageQueue.push({ name: dep, from: dir });
  }
  return { files, packages };
}
