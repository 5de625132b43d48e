import { readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import type { KubeObject, ResourceRef } from '../../ports/cluster.js';
import { splitApiVersion } from './discovery.js';

/**
 * The layout data dirs had before the journal: one JSON file per object under
 * `<dataDir>/objects/<plural.group_version>/<namespace|_cluster>/<name>.json` and `<dataDir>/meta.json` with the
 * counter. Read once on the first start of a newer version, which then writes a snapshot and removes them.
 */
const CLUSTER_DIR = '_cluster';

/** Inverse of the folder name plus what the object says about itself: the files are self-describing. */
function refFromPath(dirName: string, scopeDir: string, object: KubeObject): ResourceRef | undefined {
  const dot = dirName.indexOf('.');
  const underscore = dirName.lastIndexOf('_');
  if (dot <= 0 || underscore < dot || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return undefined;
  const { group, version } = splitApiVersion(object.apiVersion);
  if (dirName !== `${dirName.slice(0, dot)}.${group}_${version}`) return undefined;
  return { group, version, kind: object.kind, plural: dirName.slice(0, dot), namespaced: scopeDir !== CLUSTER_DIR };
}

const subdirs = async (dir: string) =>
  (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name);

async function readCounter(metaFile: string): Promise<number> {
  try {
    const rv = Number((JSON.parse(await readFile(metaFile, 'utf8')) as { resourceVersion?: unknown }).resourceVersion);
    return Number.isSafeInteger(rv) && rv >= 0 ? rv : 0;
  } catch {
    return 0;
  }
}

export async function readLegacyObjects(dataDir: string, logger: Logger): Promise<{ objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number }> {
  const objectsDir = path.join(dataDir, 'objects');
  const objects: { ref: ResourceRef; object: KubeObject }[] = [];
  let highest = await readCounter(path.join(dataDir, 'meta.json'));
  const quarantine = async (file: string, reason: string) => {
    const target = `${file}.corrupt-${Date.now()}`;
    logger.warn({ file, quarantinedAs: target, reason }, 'embedded cluster: unreadable object file quarantined');
    await rename(file, target).catch(() => undefined);
  };
  for (const kindDir of await subdirs(objectsDir)) {
    for (const scopeDir of await subdirs(path.join(objectsDir, kindDir))) {
      const dir = path.join(objectsDir, kindDir, scopeDir);
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
        const file = path.join(dir, entry.name);
        let object: KubeObject;
        try {
          object = JSON.parse(await readFile(file, 'utf8')) as KubeObject;
        } catch (err) {
          await quarantine(file, `invalid JSON: ${(err as Error).message}`);
          continue;
        }
        const ref = object && typeof object === 'object' && object.metadata ? refFromPath(kindDir, scopeDir, object) : undefined;
        if (!ref || object.metadata.name !== entry.name.slice(0, -'.json'.length) || (ref.namespaced && object.metadata.namespace !== scopeDir)) {
          await quarantine(file, 'object does not match its location');
          continue;
        }
        highest = Math.max(highest, Number(object.metadata.resourceVersion) || 0);
        objects.push({ ref, object });
      }
    }
  }
  return { objects, resourceVersion: highest };
}
