import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, createPortico, loadConfig } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const handles = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'FSReqCallback');

describe('createPortico', () => {
  it('releases what it opened when start-up fails part-way (an invalid PORTICO_RATE_LIMITS)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-start-'));
    dirs.push(dataDir);
    const config = loadConfig({
      PORTICO_PROFILE: 'development',
      PORTICO_DATA_DIR: dataDir,
      PORTICO_MANIFESTS: '',
      ADMIN_PASSWORD: 'start-failure-password',
      PORTICO_KV: 'redis',
      REDIS_ADDRESS: '127.0.0.1:1', // nothing listens: ioredis keeps reconnecting until it is closed
      PORTICO_RATE_LIMITS: '{"login":',
    });
    const before = handles().length;
    await expect(createPortico({ config, logger: createLogger('silent') })).rejects.toThrow(/PORTICO_RATE_LIMITS/);
    await new Promise((r) => setTimeout(r, 200));
    // Watches, controller timers and the Redis connections are all gone again.
    expect(handles().length).toBeLessThanOrEqual(before);
  });
});
