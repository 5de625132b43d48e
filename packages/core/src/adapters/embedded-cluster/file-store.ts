import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import { refKey, type KubeObject, type ResourceRef } from '../../ports/cluster.js';
import { readLegacyObjects } from './legacy-files.js';

/**
 * Durable state of the embedded cluster, read at start in one pass over two files:
 *
 * - `<dataDir>/snapshot.ndjson`: a header line `{"resourceVersion":"N"}` then one `{"ref","object"}` line per
 *   object, as of version N; replaced atomically (temp file, fsync, rename, fsync of the folder).
 * - `<dataDir>/journal.ndjson`: every change since, one line each (`{"rv","ref","object"}` or with `"deleted"`).
 * - `<dataDir>/journal.retired.ndjson`, only while a snapshot is being written: the journal up to it. New changes
 *   go to a fresh journal meanwhile, so a compaction never holds writes up for the time a snapshot takes.
 *
 * Changes are appended in batches: everything committed while the previous batch was being written goes out in
 * one write and one fdatasync, and is acknowledged only after it (group commit). A kill -9 can tear at most the
 * last, unacknowledged line, which the next start drops. While manifests are applied at first start the fsync
 * is deferred to the end of that phase (`deferSync`), since nothing is acknowledged to anyone before then.
 */
export interface FileStore {
  load(): Promise<{ objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number }>;
  /** Queues one change; resolves once it is on disk (or, while sync is deferred, written to the file). */
  append(change: StoredChange): Promise<void>;
  /** Until `endDeferredSync`, batches are written without fsync; that call fsyncs once. */
  deferSync(): void;
  endDeferredSync(): Promise<void>;
  /**
   * Rewrites the snapshot from what `capture` returns. The journal up to the capture is retired (renamed) and a
   * fresh one takes the appends made meanwhile; the retired one is removed once the snapshot is on disk. Appends
   * wait only for the switch (a rename, a file created, a folder fsync), not for the snapshot.
   */
  compact(capture: () => { objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number }): Promise<void>;
  /**
   * True when the journal has outgrown the state it describes (or an old layout was read): time to compact. At a
   * stop (`stopping`) the bar is lower: a journal longer than the state is worth a snapshot, which the next start
   * then reads instead of replaying every change.
   */
  needsCompaction(liveObjects: number, opts?: { stopping?: boolean }): boolean;
  /** A short note kept beside the state (written atomically), undefined when there is none. */
  readNote(name: string): Promise<string | undefined>;
  writeNote(name: string, text: string): Promise<void>;
  close(): Promise<void>;
}

export interface StoredChange {
  rv: number;
  ref: ResourceRef;
  object: KubeObject;
  deleted?: boolean;
}

const SNAPSHOT = 'snapshot.ndjson';
const JOURNAL = 'journal.ndjson';
const RETIRED_JOURNAL = 'journal.retired.ndjson';
const TEMP_SUFFIX = '.tmp';
/** A journal shorter than this is never worth rewriting the snapshot for. */
const MIN_COMPACTION_LINES = 10_000;

async function fsyncDir(dir: string): Promise<void> {
  // Makes a rename durable; some platforms cannot open folders, which only weakens durability.
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}

/** Writes `chunks` to `file` atomically: a temp file in the same folder, fsync, rename, fsync of the folder. */
async function atomicWriteFile(file: string, chunks: Iterable<string>): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomUUID()}${TEMP_SUFFIX}`);
  try {
    const handle = await open(temp, 'w', 0o600);
    try {
      let buffer = '';
      for (const chunk of chunks) {
        buffer += chunk;
        if (buffer.length >= 1 << 20) {
          await handle.write(buffer);
          buffer = '';
        }
      }
      if (buffer) await handle.write(buffer);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
}

/** Temp files of writes that never reached their rename were never acknowledged: they never happened. */
async function removeTempFiles(dir: string, logger: Logger): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await removeTempFiles(full, logger);
    else if (entry.name.endsWith(TEMP_SUFFIX)) {
      await rm(full, { force: true });
      logger.info({ file: full }, 'embedded cluster: removed a temp file left by an interrupted write');
    }
  }
}

const objectId = (ref: ResourceRef, object: KubeObject) => `${refKey(ref)}|${object.metadata.namespace ?? ''}/${object.metadata.name}`;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function validEntry(value: unknown): value is { ref: ResourceRef; object: KubeObject; rv?: number; deleted?: boolean } {
  if (!isRecord(value) || !isRecord(value.ref) || !isRecord(value.object) || !isRecord(value.object.metadata)) return false;
  return typeof value.ref.kind === 'string' && typeof value.ref.plural === 'string' && typeof value.object.metadata.name === 'string';
}

export function createFileStore(dataDir: string, logger: Logger): FileStore {
  const snapshotFile = path.join(dataDir, SNAPSHOT);
  const journalFile = path.join(dataDir, JOURNAL);
  const retiredFile = path.join(dataDir, RETIRED_JOURNAL);
  let journal: FileHandle | undefined;
  let journalLines = 0;
  let pending: { line: string; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;
  let syncDeferred = false;
  let compacting: Promise<void> | undefined;
  /** While the journal is being switched, appends queue and no batch is written. */
  let switching = false;
  /** A retired journal is on disk (a compaction was interrupted): the next one folds it in without a switch. */
  let retiredOnDisk = false;
  let failure: unknown;
  let legacyImported = false;

  const openJournal = async () => (journal ??= await open(journalFile, 'a', 0o600));

  /** Writes every queued line in one write and one fdatasync; runs one batch at a time. */
  const flush = async (): Promise<void> => {
    // A compaction's switch stops the loop after the batch on its way; what queued meanwhile goes to the new journal.
    while (pending.length > 0 && !switching) {
      const batch = pending;
      pending = [];
      try {
        if (failure) throw failure;
        const handle = await openJournal();
        await handle.write(batch.map((b) => b.line).join(''));
        if (!syncDeferred) await handle.datasync();
        journalLines += batch.length;
        for (const b of batch) b.resolve();
      } catch (err) {
        // After a failed write the journal's tail is unknown: refuse further writes rather than risk a gap.
        failure ??= err;
        for (const b of batch) b.reject(err);
      }
    }
    flushing = undefined;
  };

  const readLines = async (file: string): Promise<string[]> => {
    try {
      return (await readFile(file, 'utf8')).split('\n');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };

  return {
    async load() {
      await mkdir(dataDir, { recursive: true });
      await removeTempFiles(dataDir, logger);
      const state = new Map<string, { ref: ResourceRef; object: KubeObject }>();
      let highest = 0;

      const snapshot = await readLines(snapshotFile);
      if (snapshot.length > 0 && snapshot[0]) {
        highest = Number((JSON.parse(snapshot[0]) as { resourceVersion?: string }).resourceVersion) || 0;
        for (const line of snapshot.slice(1)) {
          if (!line) continue;
          const entry: unknown = JSON.parse(line);
          if (validEntry(entry)) state.set(objectId(entry.ref, entry.object), { ref: entry.ref, object: entry.object });
        }
      } else {
        // A data dir written by an earlier version (one file per object): read once, snapshot below.
        const legacy = await readLegacyObjects(dataDir, logger);
        highest = legacy.resourceVersion;
        legacyImported = legacy.objects.length > 0;
        for (const item of legacy.objects) state.set(objectId(item.ref, item.object), item);
      }
      const snapshotVersion = highest;

      // The retired journal (if a crash interrupted a compaction) holds the older lines; both are read in order.
      for (const file of [retiredFile, journalFile]) {
        const lines = await readLines(file);
        if (file === retiredFile && lines.length > 0) retiredOnDisk = true;
        let goodBytes = 0;
        let torn = false;
        for (const [i, line] of lines.entries()) {
          const last = i === lines.length - 1;
          if (last && line === '') break;
          let entry: unknown;
          try {
            entry = JSON.parse(line);
          } catch {
            entry = undefined;
          }
          if (!validEntry(entry) || typeof entry.rv !== 'number' || last) {
            // Only the line being written when the process died can be incomplete (no newline, or cut short).
            torn = true;
            logger.warn({ file, line: i + 1 }, 'embedded cluster: dropped an incomplete journal line left by a crash');
            break;
          }
          goodBytes += Buffer.byteLength(line) + 1;
          journalLines += 1;
          if (entry.rv <= snapshotVersion) continue; // already in the snapshot (a crash between snapshot and truncate)
          const id = objectId(entry.ref, entry.object);
          if (entry.deleted) state.delete(id);
          else state.set(id, { ref: entry.ref, object: entry.object });
          highest = Math.max(highest, entry.rv);
        }
        if (torn) {
          const handle = await open(file, 'r+');
          try {
            await handle.truncate(goodBytes);
            await handle.sync();
          } finally {
            await handle.close();
          }
        }
      }
      return { objects: [...state.values()], resourceVersion: highest };
    },

    append(change) {
      const line = `${JSON.stringify(change.deleted ? { rv: change.rv, ref: change.ref, object: change.object, deleted: true } : change)}\n`;
      return new Promise<void>((resolve, reject) => {
        pending.push({ line, resolve, reject });
        if (!switching) flushing ??= Promise.resolve().then(flush);
      });
    },

    deferSync() {
      syncDeferred = true;
    },

    readNote: (name) => readFile(path.join(dataDir, name), 'utf8').catch(() => undefined),
    writeNote: (name, text) => atomicWriteFile(path.join(dataDir, name), [text]),

    async endDeferredSync() {
      syncDeferred = false;
      await flushing;
      if (journal) await journal.sync();
    },

    async compact(capture) {
      if (compacting) return compacting;
      const run = async () => {
        switching = true;
        await flushing;
        const { objects, resourceVersion } = capture();
        function* lines() {
          yield `${JSON.stringify({ resourceVersion: String(resourceVersion) })}\n`;
          for (const { ref, object } of objects) yield `${JSON.stringify({ ref, object })}\n`;
        }
        // Every line written so far is in the capture. Unless an interrupted compaction left a retired journal
        // (then appends wait, as the snapshot covers both journals), the journal is retired and a fresh one takes
        // the appends from now on; the rename and the new file are durable before any of them is acknowledged.
        const rotate = !retiredOnDisk;
        if (rotate) {
          await journal?.close();
          journal = undefined;
          await rename(journalFile, retiredFile).catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') throw err;
          });
          retiredOnDisk = true;
          await openJournal();
          await fsyncDir(dataDir);
          journalLines = 0;
          switching = false;
          if (pending.length > 0) flushing ??= Promise.resolve().then(flush);
        }
        await atomicWriteFile(snapshotFile, lines());
        if (!rotate) {
          // Every line of the current journal is in the snapshot too; a crash before this truncate only replays lines it skips.
          const handle = await openJournal();
          await handle.truncate(0);
          await handle.sync();
          journalLines = 0;
        }
        await rm(retiredFile, { force: true });
        retiredOnDisk = false;
        legacyImported = false;
        await rm(path.join(dataDir, 'objects'), { recursive: true, force: true });
        await rm(path.join(dataDir, 'meta.json'), { force: true });
      };
      compacting = run().finally(() => {
        compacting = undefined;
        switching = false;
        if (pending.length > 0) flushing ??= Promise.resolve().then(flush);
      });
      return compacting;
    },

    needsCompaction: (liveObjects, opts = {}) =>
      legacyImported || retiredOnDisk || journalLines > Math.max(MIN_COMPACTION_LINES, (opts.stopping ? 1 : 2) * liveObjects),

    async close() {
      await compacting;
      await flushing;
      await journal?.close();
      journal = undefined;
    },
  };
}
