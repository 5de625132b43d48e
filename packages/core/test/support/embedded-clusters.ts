import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';

/**
 * Embedded clusters and data dirs a test file opens, closed and removed after each test, so a failing test
 * leaves no cluster running and no folder behind. Call once at the top of the file.
 */
export function embeddedClusters(prefix: string) {
  const open: EmbeddedCluster[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  return {
    async tempDir() {
      const dir = await mkdtemp(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async start(opts: Parameters<typeof createEmbeddedCluster>[0] = {}) {
      const cluster = await createEmbeddedCluster({ kroStepMs: 5, ...opts });
      open.push(cluster);
      return cluster;
    },
    async stop(cluster: EmbeddedCluster) {
      open.splice(open.indexOf(cluster), 1);
      await cluster.close();
    },
  };
}
