import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Logger } from '../../logger.js';
import type { KubeObject, ResourceRef } from '../../ports/cluster.js';
import { builtinRef, splitApiVersion } from './discovery.js';
import { isObject, stableStringify } from './json.js';
import type { ObjectStore } from './object-store.js';

export const LAST_APPLIED_HASH_ANNOTATION = 'portico.dev/last-applied-hash';

interface ManifestDocument {
  file: string;
  index: number;
  object: KubeObject;
}

async function yamlFilesUnder(target: string): Promise<string[]> {
  let info;
  try {
    info = await stat(target);
  } catch (err) {
    throw new Error(`manifest path ${target}: ${(err as Error).message}`);
  }
  if (!info.isDirectory()) return [target];
  const files: string[] = [];
  for (const entry of (await readdir(target, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) files.push(...(await yamlFilesUnder(full)));
    else if (/\.ya?ml$/i.test(entry.name)) files.push(full);
  }
  return files;
}

/**
 * The documents of one YAML file. Generated manifests are often JSON documents (JSON is YAML): those are read with
 * JSON.parse, which is a hundred times faster than a YAML parser on 20k documents; the file goes through the YAML
 * parser as a whole when any document is not plain JSON, so YAML semantics never depend on the shortcut.
 */
function parseDocuments(text: string): unknown[] {
  const chunks = text.split(/^---[ \t]*\r?$/m);
  if (chunks.length > 1 && chunks.every((c) => c.trim() === '' || /^\s*\{/.test(c))) {
    try {
      return chunks.filter((c) => c.trim() !== '').map((c) => JSON.parse(c) as unknown);
    } catch {
      // not JSON after all: the YAML parser decides
    }
  }
  return parseAllDocuments(text).map((doc) => (doc.errors.length > 0 ? new Error(doc.errors[0].message) : (doc.toJS() as unknown)));
}

interface ManifestFile {
  file: string;
  text: string;
}

/** The YAML files under `paths`, in the order they are applied. */
export async function readManifestFiles(paths: string[]): Promise<ManifestFile[]> {
  const files: ManifestFile[] = [];
  for (const target of paths) {
    for (const file of await yamlFilesUnder(target)) {
      const text = await readFile(file, 'utf8').catch((err: Error) => {
        throw new Error(`manifest ${file}: ${err.message}`);
      });
      files.push({ file, text });
    }
  }
  return files;
}

/** One digest of what the files say: their names and contents, in order. */
export function manifestsDigest(files: readonly ManifestFile[]): string {
  const hash = createHash('sha256');
  for (const { file, text } of files) hash.update(`${file}\0${Buffer.byteLength(text)}\0`).update(text);
  return hash.digest('hex');
}

/** The documents of the files; a file that does not parse or lacks apiVersion/kind/name fails, naming it. */
export function parseManifestFiles(files: readonly ManifestFile[]): ManifestDocument[] {
  const docs: ManifestDocument[] = [];
  for (const { file, text } of files) {
    for (const [index, object] of parseDocuments(text).entries()) {
      if (object instanceof Error) throw new Error(`manifest ${file}: ${object.message}`);
      if (object === null || object === undefined) continue; // empty document (e.g. a trailing ---)
      if (
        !isObject(object) ||
        typeof object.apiVersion !== 'string' ||
        typeof object.kind !== 'string' ||
        !isObject(object.metadata) ||
        typeof object.metadata.name !== 'string'
      ) {
        throw new Error(`manifest ${file}: document ${index + 1} needs apiVersion, kind and metadata.name`);
      }
      docs.push({ file, index, object: object as unknown as KubeObject });
    }
  }
  return docs;
}

/** Kinds others depend on go first: namespaces, then RGDs (which make instance kinds exist), then the rest. */
function applyRank(object: KubeObject): number {
  const { group, version } = splitApiVersion(object.apiVersion);
  if (group === '' && object.kind === 'Namespace') return 0;
  if (group === 'kro.run' && object.kind === 'ResourceGraphDefinition') return 1;
  if (builtinRef(group, version, object.kind)) return 2;
  return 3;
}

/**
 * `kubectl apply` semantics, simplified: create when absent; when present, update only if the manifest
 * changed since it was last applied (hash annotation), so edits made through the API survive a restart
 * while an edited file still wins. Answers how many documents were skipped for a kind not known (yet).
 */
export async function applyManifests(
  docs: ManifestDocument[],
  deps: { store: ObjectStore; discover: (group: string, version: string, kind: string) => Promise<ResourceRef | undefined>; logger: Logger },
): Promise<{ skipped: number }> {
  let skipped = 0;
  const writes: Promise<void>[] = [];
  const discovered = new Map<string, ResourceRef>();
  const ordered = docs.map((d, i) => ({ d, i })).sort((a, b) => applyRank(a.d.object) - applyRank(b.d.object) || a.i - b.i);
  for (const { d } of ordered) {
    const { file, object } = d;
    const { group, version } = splitApiVersion(object.apiVersion);
    // 20k instances of a few hundred kinds: discover each kind once (RGDs come first, so a kind found stays found).
    const kindKey = `${object.apiVersion}/${object.kind}`;
    const ref = discovered.get(kindKey) ?? (await deps.discover(group, version, object.kind));
    if (ref) discovered.set(kindKey, ref);
    const what = `${object.kind} ${object.metadata.name}`;
    if (!ref) {
      deps.logger.warn({ file, apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name }, 'manifest: unknown kind, skipped');
      skipped++;
      continue;
    }
    const { status: _status, ...desired } = object;
    const hash = createHash('sha256').update(stableStringify(desired)).digest('hex');
    const namespace = ref.namespaced ? object.metadata.namespace || 'default' : undefined;
    const failed = (err: unknown) => {
      throw new Error(`manifest ${file}: ${what}: ${(err as Error).message}`, { cause: err });
    };
    // The store applies each write at once and only awaits durability: later documents see earlier ones, and the
    // writes of a whole load share their disk flushes instead of waiting for each other.
    try {
      const existing = deps.store.get(ref, object.metadata.name, namespace);
      if (!existing) {
        writes.push(
          deps.store
            .create(ref, {
              ...desired,
              metadata: { ...desired.metadata, namespace, annotations: { ...desired.metadata.annotations, [LAST_APPLIED_HASH_ANNOTATION]: hash } },
            })
            .then(() => deps.logger.debug({ file, object: what }, 'manifest: created'), failed),
        );
      } else if (existing.metadata.annotations?.[LAST_APPLIED_HASH_ANNOTATION] !== hash) {
        writes.push(
          deps.store
            .replace(ref, {
              ...desired,
              metadata: {
                ...existing.metadata,
                labels: { ...existing.metadata.labels, ...desired.metadata.labels },
                annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations, [LAST_APPLIED_HASH_ANNOTATION]: hash },
              },
            })
            .then(() => deps.logger.info({ file, object: what }, 'manifest: changed since last applied, updated'), failed),
        );
      }
    } catch (err) {
      failed(err);
    }
  }
  await Promise.all(writes);
  deps.logger.info({ documents: docs.length, written: writes.length }, 'manifests applied');
  return { skipped };
}
