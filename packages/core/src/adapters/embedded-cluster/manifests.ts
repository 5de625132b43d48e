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

export interface ManifestDocument {
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

/** Reads every YAML document; a file that does not parse or lacks apiVersion/kind/name fails, naming it. */
export async function readManifests(paths: string[]): Promise<ManifestDocument[]> {
  const docs: ManifestDocument[] = [];
  for (const target of paths) {
    for (const file of await yamlFilesUnder(target)) {
      const text = await readFile(file, 'utf8').catch((err: Error) => {
        throw new Error(`manifest ${file}: ${err.message}`);
      });
      for (const [index, doc] of parseAllDocuments(text).entries()) {
        if (doc.errors.length > 0) throw new Error(`manifest ${file}: ${doc.errors[0].message}`);
        const object = doc.toJS() as KubeObject | null;
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
        docs.push({ file, index, object });
      }
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
 * while an edited file still wins.
 */
export async function applyManifests(
  docs: ManifestDocument[],
  deps: { store: ObjectStore; discover: (group: string, version: string, kind: string) => Promise<ResourceRef | undefined>; logger: Logger },
): Promise<void> {
  const ordered = docs.map((d, i) => ({ d, i })).sort((a, b) => applyRank(a.d.object) - applyRank(b.d.object) || a.i - b.i);
  for (const { d } of ordered) {
    const { file, object } = d;
    const { group, version } = splitApiVersion(object.apiVersion);
    const ref = await deps.discover(group, version, object.kind);
    const what = `${object.kind} ${object.metadata.name}`;
    if (!ref) {
      deps.logger.warn({ file, apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name }, 'manifest: unknown kind, skipped');
      continue;
    }
    const { status: _status, ...desired } = object;
    const hash = createHash('sha256').update(stableStringify(desired)).digest('hex');
    const namespace = ref.namespaced ? object.metadata.namespace || 'default' : undefined;
    try {
      const existing = deps.store.get(ref, object.metadata.name, namespace);
      if (!existing) {
        await deps.store.create(ref, {
          ...desired,
          metadata: { ...desired.metadata, namespace, annotations: { ...desired.metadata.annotations, [LAST_APPLIED_HASH_ANNOTATION]: hash } },
        });
        deps.logger.info({ file, object: what }, 'manifest: created');
      } else if (existing.metadata.annotations?.[LAST_APPLIED_HASH_ANNOTATION] !== hash) {
        await deps.store.replace(ref, {
          ...desired,
          metadata: {
            ...existing.metadata,
            labels: { ...existing.metadata.labels, ...desired.metadata.labels },
            annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations, [LAST_APPLIED_HASH_ANNOTATION]: hash },
          },
        });
        deps.logger.info({ file, object: what }, 'manifest: changed since last applied, updated');
      }
    } catch (err) {
      throw new Error(`manifest ${file}: ${what}: ${(err as Error).message}`, { cause: err });
    }
  }
}
