import { mkdtemp, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configPath, loadConfig, saveConfig, type CliConfig } from '../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-cli-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config: CliConfig = {
  currentContext: 'dev',
  contexts: [{ name: 'dev', server: 'http://localhost:8080', token: 'secret-token', user: 'alice', expiresAt: '2099-01-01T00:00:00Z' }],
};

describe('config file', () => {
  it('is created with mode 0600 in a 0700 directory', async () => {
    const path = join(dir, 'nested', 'portico', 'config.yaml');
    await saveConfig(path, config);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'nested', 'portico'))).mode & 0o777).toBe(0o700);
    expect(await loadConfig(path)).toEqual(config);
  });

  it('tightens a file that was readable by others', async () => {
    const path = join(dir, 'config.yaml');
    await writeFile(path, 'currentContext: ""\ncontexts: []\n');
    await chmod(path, 0o644);
    await saveConfig(path, config);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('reads a missing file as no contexts', async () => {
    expect(await loadConfig(join(dir, 'absent.yaml'))).toEqual({ currentContext: '', contexts: [] });
  });

  it('lives at $PORTICO_CONFIG, else under ~/.config/portico', () => {
    expect(configPath({ PORTICO_CONFIG: '/x/y.yaml' })).toBe('/x/y.yaml');
    expect(configPath({ HOME: '/home/bob' })).toBe('/home/bob/.config/portico/config.yaml');
  });
});
