import { compileSimpleSchema } from './simple-schema.js';
import type { CatalogEntry, JsonSchemaObject } from './types.js';
import { deepFreeze } from '../freeze.js';

export type CompiledSchema = { ok: true; schema: JsonSchemaObject } | { ok: false; error: string };

export interface SchemaCache {
  /** The compiled schema of an entry: compiled once per name + revision, failures cached too. */
  compile(entry: CatalogEntry): CompiledSchema;
  forget(name: string): void;
}

// Compiled schemas are shared by every request and by the ajv validator cache, so nobody may change them.

export function createSchemaCache(): SchemaCache {
  const byName = new Map<string, { revision: string; source: unknown; result: CompiledSchema }>();
  return {
    compile(entry) {
      const cached = byName.get(entry.name);
      // Without a revision (objects built by hand) the source object itself tells whether it changed.
      if (cached && cached.revision === entry.revision && (entry.revision !== '' || cached.source === entry.schemaSpec)) {
        return cached.result;
      }
      let result: CompiledSchema;
      try {
        result = { ok: true, schema: deepFreeze(compileSimpleSchema(entry.schemaSpec, entry.schemaTypes)) };
      } catch (e) {
        result = { ok: false, error: (e as Error).message };
      }
      byName.set(entry.name, { revision: entry.revision, source: entry.schemaSpec, result });
      return result;
    },
    forget(name) {
      byName.delete(name);
    },
  };
}
