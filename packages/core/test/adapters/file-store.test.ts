import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileStore, type StoredChange } from '../../src/adapters/embedded-cluster/file-store.js';
import { createLogger } from '../../src/logger.js';
import { resources, type KubeObject } from '../../src/ports/cluster.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir() {
  const dir = await mkdtemp(path.join(tmpdir(), 'portico-file-store-'));
  dirs.push(dir);
  return dir;
}

const logger = createLogger('error');
const secret = (name: string, n = 0): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, data: { n: String(n) } });
const change = (rv: number, name: string, deleted = false): StoredChange => ({ rv, ref: resources.secret, object: secret(name, rv), ...(deleted && { deleted }) });
const line = (c: StoredChange) => `${JSON.stringify(c)}\n`;
const namesOf = (objects: { object: KubeObject }[]) => objects.map((o) => `${o.object.metadata.name}:${String(o.object.data?.n)}`).sort();

describe('embedded cluster files: compaction', () => {
  it('acknowledges a write made while a snapshot is being written before the snapshot is done, and keeps it', async () => {
    const dir = await tempDir();
    const store = createFileStore(dir, logger);
    await store.load();
    await Promise.all([1, 2, 3].map((rv) => store.append(change(rv, `s${rv}`))));
    // A large state, so that writing its snapshot takes far longer than one journal write.
    const state = Array.from({ length: 30_000 }, (_, i) => ({ ref: resources.secret, object: secret(`bulk-${i}`, 1) }));
    let compacted = false;
    const compaction = store.compact(() => ({ objects: state, resourceVersion: 3 })).then(() => (compacted = true));
    await store.append(change(4, 'during'));
    expect(compacted).toBe(false);
    await compaction;
    await store.close();

    const reopened = createFileStore(dir, logger);
    const { objects, resourceVersion } = await reopened.load();
    expect(resourceVersion).toBe(4);
    expect(objects).toHaveLength(30_001);
    expect(namesOf(objects.filter((o) => !o.object.metadata.name.startsWith('bulk-')))).toEqual(['during:4']);
    expect((await readdir(dir)).sort()).toEqual(['journal.ndjson', 'snapshot.ndjson']);
    await reopened.close();
  });

  it('a crash in the middle of a compaction loses no acknowledged write, whether or not the snapshot was replaced', async () => {
    // Retired journal: rv 1–3. New journal: rv 3 (appended before the capture, written after the switch), 4 and a
    // delete at 5. Either the old snapshot (empty) or the new one (as of rv 3) is on disk.
    const retired = [change(1, 'a'), change(2, 'b'), change(3, 'c')];
    const current = [change(3, 'c'), change(4, 'd'), change(5, 'a', true)];
    const newSnapshot = [`${JSON.stringify({ resourceVersion: '3' })}\n`, ...retired.map((c) => `${JSON.stringify({ ref: c.ref, object: c.object })}\n`)];
    for (const snapshot of [undefined, newSnapshot]) {
      const dir = await tempDir();
      if (snapshot) await writeFile(path.join(dir, 'snapshot.ndjson'), snapshot.join(''));
      await writeFile(path.join(dir, 'journal.retired.ndjson'), retired.map(line).join(''));
      await writeFile(path.join(dir, 'journal.ndjson'), current.map(line).join(''));

      const store = createFileStore(dir, logger);
      const { objects, resourceVersion } = await store.load();
      expect(resourceVersion).toBe(5);
      expect(namesOf(objects)).toEqual(['b:2', 'c:3', 'd:4']);
      // The next compaction folds the retired journal in and removes it.
      expect(store.needsCompaction(objects.length)).toBe(true);
      await store.compact(() => ({ objects, resourceVersion }));
      await store.append(change(6, 'e'));
      await store.close();
      expect((await readdir(dir)).sort()).toEqual(['journal.ndjson', 'snapshot.ndjson']);

      const again = createFileStore(dir, logger);
      const reloaded = await again.load();
      expect(namesOf(reloaded.objects)).toEqual(['b:2', 'c:3', 'd:4', 'e:6']);
      expect(again.needsCompaction(reloaded.objects.length)).toBe(false);
      await again.close();
    }
  });
});
