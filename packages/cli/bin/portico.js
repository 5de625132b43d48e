#!/usr/bin/env node
// The `portico` command. Installed from a package, dist/ is always there. In a fresh clone of the repository
// (`npm ci && npx portico`) it is not built yet: build this package once, then run it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(bin)) {
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write('Building the portico CLI once (packages/cli/dist is missing)...\n');
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd, stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' });
  if (built.status !== 0 || !existsSync(bin)) {
    process.stderr.write('error: building the CLI failed; run npm run build at the repository root\n');
    process.exit(1);
  }
}
await import(bin.href);
