import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The packages/ directory: source files are named relative to it (`enterprise/src/plugin.ts`). */
export const packagesDir = fileURLToPath(new URL('../../../', import.meta.url));

export interface SourceFile {
  file: string;
  text: string;
}

/** Every .ts file under `dir` (relative to packages/), sorted by name. */
export function sources(dir: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push({ file: relative(packagesDir, path), text: readFileSync(path, 'utf8') });
    }
  };
  walk(join(packagesDir, dir));
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** The source files of every package (each packages/<name>/src). */
export function allSources(): SourceFile[] {
  const out: SourceFile[] = [];
  for (const pkg of readdirSync(packagesDir).sort()) {
    try {
      if (statSync(join(packagesDir, pkg, 'src')).isDirectory()) out.push(...sources(`${pkg}/src`));
    } catch {
      // a directory without src/
    }
  }
  return out;
}
