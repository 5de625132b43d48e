import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import { refKey, type KubeObject, type ResourceRef } from '../../ports/cluster.js';
import { splitApiVersion } from './discovery.js';

/**
 * Durable state of the embedded cluster: one JSON file per object under
 * `<dataDir>/objects/<plural.group_version>/<namespace|_cluster>/<name>.json` and `<dataDir>/meta.json` with
 * the resourceVersion counter. Every write is atomic (temp file in the same folder, fsync, rename, fsync of
 * the folder), so a crash leaves either the old or the new file, never a torn one.
 */
export interface FileStore {
  load(): Promise<{ objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number }>;
  writeObject(ref: ResourceRef, object: KubeObject): Promise<void>;
  removeObject(ref: ResourceRef, object: KubeObject): Promise<void>;
  writeCounter(resourceVersion: number): Promise<void>;
}

const CLUSTER_DIR = '_cluster';
const TEMP_SUFFIX = '.tmp';

const refDir = (ref: ResourceRef) => refKey(ref).replace(/\//g, '_');

/** Inverse of refDir plus what the object says about itself: the files are self-describing. */
function refFromPath(dirName: string, scopeDir: string, object: KubeObject): ResourceRef | undefined {
  const dot = dirName.indexOf('.');
  const underscore = dirName.lastIndexOf('_');
  if (dot <= 0 || underscore < dot || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return undefined;
  const { group, version } = splitApiVersion(object.apiVersion);
  if (dirName !== `${dirName.slice(0, dot)}.${group}_${version}`) return undefined;
  return { group, version, kind: object.kind, plural: dirName.slice(0, dot), namespaced: scopeDir !== CLUSTER_DIR };
}

async function fsyncDir(dir: string): Promise<void> {
  // Makes the rename itself durable; some platforms cannot open folders, which only weakens durability.
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

export async function atomicWriteFile(file: string, content: string): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomUUID()}${TEMP_SUFFIX}`);
  try {
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(content, 'utf8');
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

export function createFileStore(dataDir: string, logger: Logger): FileStore {
  const objectsDir = path.join(dataDir, 'objects');
  const metaFile = path.join(dataDir, 'meta.json');
  const madeDirs = new Set<string>();

  const objectFile = (ref: ResourceRef, object: KubeObject) =>
    path.join(objectsDir, refDir(ref), ref.namespaced ? object.metadata.namespace! : CLUSTER_DIR, `${object.metadata.name}.json`);

  const ensureDir = async (dir: string) => {
    if (madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    madeDirs.add(dir);
  };

  const quarantine = async (file: string, reason: string) => {
    const target = `${file}.corrupt-${Date.now()}`;
    logger.warn({ file, quarantinedAs: target, reason }, 'embedded cluster: unreadable object file quarantined');
    await rename(file, target).catch(() => undefined);
  };

  const readCounter = async (): Promise<number> => {
    try {
      const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { resourceVersion?: unknown };
      const rv = Number(meta.resourceVersion);
      return Number.isSafeInteger(rv) && rv >= 0 ? rv : 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        logger.warn({ file: metaFile, err: String(err) }, 'embedded cluster: meta.json unreadable, recovering counter from objects');
      }
      return 0;
    }
  };

  const subdirs = async (dir: string) =>
    (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name);

  return {
    async load() {
      await mkdir(objectsDir, { recursive: true });
      const objects: { ref: ResourceRef; object: KubeObject }[] = [];
      let highest = await readCounter();
      for (const kindDir of await subdirs(objectsDir)) {
        for (const scopeDir of await subdirs(path.join(objectsDir, kindDir))) {
          const dir = path.join(objectsDir, kindDir, scopeDir);
          for (const entry of await readdir(dir, { withFileTypes: true })) {
            const file = path.join(dir, entry.name);
            if (!entry.isFile()) continue;
            if (entry.name.endsWith(TEMP_SUFFIX)) {
              // A write that never reached its rename: it was not acknowledged, so it never happened.
              await rm(file, { force: true });
              continue;
            }
            if (!entry.name.endsWith('.json')) continue;
            let object: KubeObject;
            try {
              object = JSON.parse(await readFile(file, 'utf8')) as KubeObject;
            } catch (err) {
              await quarantine(file, `invalid JSON: ${(err as Error).message}`);
              continue;
            }
            const ref = object && typeof object === 'object' && object.metadata ? refFromPath(kindDir, scopeDir, object) : undefined;
            const expectedName = entry.name.slice(0, -'.json'.length);
            if (!ref || object.metadata.name !== expectedName || (ref.namespaced && object.metadata.namespace !== scopeDir)) {
              await quarantine(file, 'object does not match its location');
              continue;
            }
            highest = Math.max(highest, Number(object.metadata.resourceVersion) || 0);
            objects.push({ ref, object });
          }
        }
      }
      return { objects, resourceVersion: highest };
    },

    async writeObject(ref, object) {
      const file = objectFile(ref, object);
      await ensureDir(path.dirname(file));
      await atomicWriteFile(file, `${JSON.stringify(object, null, 2)}\n`);
    },

    async removeObject(ref, object) {
      const file = objectFile(ref, object);
      await rm(file, { force: true });
      await fsyncDir(path.dirname(file));
    },

    async writeCounter(resourceVersion) {
      await ensureDir(dataDir);
      await atomicWriteFile(metaFile, `${JSON.stringify({ resourceVersion: String(resourceVersion) })}\n`);
    },
  };
}
