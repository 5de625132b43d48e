#!/usr/bin/env node
// `npm start` and `npm run start:enterprise`: rebuild (JavaScript only, no type declarations) each package the
// server runs whose sources changed since its last build, then run the built server in the development profile in
// this process. A second start with nothing changed builds nothing. `npm run build` still builds everything,
// declarations too.
//
//   node scripts/start.mjs [--enterprise] [admin …]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsup = path.join(root, 'node_modules', '.bin', 'tsup');

const enterprise = process.argv[2] === '--enterprise';
// The server binaries read `admin …` from argv[2]; the edition flag is this script's, not theirs.
if (enterprise) process.argv.splice(2, 1);

// What the server loads; each package resolves the others through their own dist/.
const packages = [
  ['api', 'index.js'],
  ['core', 'index.js'],
  ['server', 'bin.js'],
  ...(enterprise ? [['enterprise', 'bin.js']] : []),
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
if (enterprise) prepareEnterprise(process.env);
const bin = path.join(root, 'packages', enterprise ? 'enterprise' : 'server', 'dist', 'bin.js');
await import(pathToFileURL(bin).href);

/**
 * The Enterprise development server, evaluable in one command: its own data dir (the OSS server's `.portico` is
 * not shared), the local PostgreSQL, the sample catalog with the Category CRD, and the repository's example
 * evaluation key trusted, with a license it signed for every feature unless PORTICO_LICENSE_FILE names one. The
 * example key's private half is in this repository, so only this development script trusts it; the published
 * server never does.
 */
function prepareEnterprise(env) {
  env.PORTICO_DATA_DIR ||= '.portico-enterprise';
  env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
  env.PORTICO_MANIFESTS ||= 'examples/catalog,deploy/crds/category.yaml';
  const exampleKeys = path.join(root, 'examples', 'enterprise', 'throwaway-public.jwks.json');
  env.PORTICO_LICENSE_KEYS ||= exampleKeys;
  if (process.argv[2] === 'admin' || env.PORTICO_LICENSE_FILE) return;
  const license = execFileSync(
    process.execPath,
    [path.join(root, 'examples', 'enterprise', 'issue-license.mjs'), '--customer', 'Development evaluation', '--expires', '+30d'],
    { encoding: 'utf8' },
  );
  const dataDir = path.resolve(env.PORTICO_DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  env.PORTICO_LICENSE_FILE = path.join(dataDir, 'evaluation-license.jwt');
  writeFileSync(env.PORTICO_LICENSE_FILE, license, { mode: 0o600 });
  process.stdout.write(
    `portico: development evaluation license (every feature, 30 days) signed with the repository's example key: ${path.relative(root, env.PORTICO_LICENSE_FILE)}\n`,
  );
}
