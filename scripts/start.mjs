#!/usr/bin/env node
// `npm start`: rebuilds (JavaScript only, no type declarations) each package the server runs whose sources
// changed since its last build, then runs the built server in the development profile in this process. A
// second start with nothing changed builds nothing. `npm run build` still builds everything, declarations too.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsup = path.join(root, 'node_modules', '.bin', 'tsup');
// What portico-server loads; each package resolves the others through their own dist/.
const packages = [
  ['api', 'index.js'],
  ['core', 'index.js'],
  ['server', 'bin.js'],
];

const newest = (file) => {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  return stat.isDirectory() ? Math.max(0, ...readdirSync(file).map((entry) => newest(path.join(file, entry)))) : stat.mtimeMs;
};

for (const [name, output] of packages) {
  const dir = path.join(root, 'packages', name);
  const built = newest(path.join(dir, 'dist', output));
  const sources = Math.max(...['src', 'package.json', 'tsup.config.ts'].map((entry) => newest(path.join(dir, entry))));
  if (built >= sources) continue;
  process.stdout.write(`portico: building @portico/${name} (its sources changed)\n`);
  execFileSync(tsup, ['--no-dts', '--no-clean', '--silent'], { cwd: dir, stdio: 'inherit' });
}

process.env.PORTICO_PROFILE = 'development';
await import(pathToFileURL(path.join(root, 'packages', 'server', 'dist', 'bin.js')).href);
