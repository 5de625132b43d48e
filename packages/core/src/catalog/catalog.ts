import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { Informer } from '../cluster/informer-types.js';
import { notFound, unprocessable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { Authorizer, CatalogService } from '../types.js';
import { createCatalogIndex, type CatalogChange } from './catalog-index.js';
import { createCatalogList } from './catalog-list.js';
import { createCallerViews } from './catalog-views.js';
import { formSchemaOf } from './form-schema.js';
import { graphOf } from './graph.js';
import { createMemoryRevisionStore, type RevisionRecord, type RevisionStore } from './revision-store.js';
import { createRevisionLog, type RevisionNotice } from './revisions.js';
import { createSchemaCache } from './schema-cache.js';
import type { CatalogEntry, JsonSchemaObject } from './types.js';
import { visibilityFor } from './visibility.js';
import { toRgd, toRgdDetail } from './wire.js';

export type { CatalogChange } from './catalog-index.js';

export interface CatalogDeps {
  /** Informer over `kro.run/v1alpha1 ResourceGraphDefinition`; the index follows its events. */
  rgds: Informer;
  authz: Authorizer;
  logger?: Logger;
  /** Instances per RGD name that `actor` may see (from the instances module); 0 when absent. */
  instanceCounts?: (actor: Actor, names?: readonly string[]) => ReadonlyMap<string, number>;
  /**
   * Moves whenever `instanceCounts` may answer differently for the same caller, policy and catalog (an instance
   * came, went or moved). Without it, list pages with counts are built on every request.
   */
  instanceCountsRevision?: () => number;
  /**
   * Where RGD revisions are kept (ConfigMaps in Portico's namespace, `createRevisionStore`); in memory when
   * absent (a catalog without a cluster behind it).
   */
  revisionStore?: RevisionStore;
  /** Clock of the revision log (tests). */
  now?: () => Date;
}

export interface Catalog extends CatalogService {
  list(actor: Actor, query: Partial<api.RgdListQuery>): api.RgdList;
  /** A catalog entry by RGD name, without any RBAC check (for other modules, not for responses). */
  entry(name: string): CatalogEntry | undefined;
  /** Every catalog entry, sorted by name, without RBAC. */
  entries(): CatalogEntry[];
  /** The catalog entry whose instances are of `kind` (and `group`, when given); the first by name if several. */
  entryForKind(kind: string, group?: string): CatalogEntry | undefined;
  /** The entry's compiled JSON Schema (cached per revision); UNPROCESSABLE when its simple schema is invalid. */
  schemaOf(entry: CatalogEntry): JsonSchemaObject;
  visibleTo(actor: Actor, entry: CatalogEntry): boolean;
  /** Called after the index changed, synchronously, in the informer's event order. */
  onChange(listener: (action: CatalogChange, entry: CatalogEntry) => void): Disposable;
  /** The recorded revisions of an RGD, oldest first, without RBAC (an instance's timeline marks them). */
  revisionRecords(name: string): readonly RevisionRecord[];
  /** A revision was recorded, changed or removed (the live stream's `revision_update`). */
  onRevision(listener: (notice: RevisionNotice) => void): Disposable;
  /** Resolves when every RGD change seen so far has had its revision recorded (tests). */
  revisionsIdle(): Promise<void>;
  /** Stops following the informer. */
  close(): void;
}

/**
 * The catalog: an in-memory index of catalog RGDs kept current by the RGD informer (never re-read on a request),
 * filtered per caller by the visibility rule in visibility.ts. The index is catalog-index's, what each caller
 * sees catalog-views', the list page catalog-list's; this file wires them and answers for single RGDs.
 */
export function createCatalog(deps: CatalogDeps): Catalog {
  const { rgds, authz, logger } = deps;
  const schemas = createSchemaCache();
  const revisions = createRevisionLog({ store: deps.revisionStore ?? createMemoryRevisionStore(), logger, now: deps.now });
  // Before the index: indexing the informer's first list already invalidates the callers' views.
  const views = createCallerViews(authz, (sortBy, order) => index.sortedBy(sortBy, order));
  const index = createCatalogIndex({ rgds, schemas, revisions, logger, invalidated: views.clear });
  const list = createCatalogList(views, deps);

  const instanceCountsFor = (actor: Actor, names?: readonly string[]): ReadonlyMap<string, number> =>
    deps.instanceCounts?.(actor, names) ?? new Map<string, number>();

  const visibleSchema = (entry: CatalogEntry): JsonSchemaObject => {
    const result = schemas.compile(entry);
    // The detail page still opens for a broken RGD; the error says why no form can be built.
    return result.ok ? result.schema : { type: 'object', properties: {}, 'x-portico-schema-error': result.error };
  };

  /** Absent and invisible look the same, so a caller cannot probe for RGDs of other projects. */
  const visibleEntry = (actor: Actor, name: string): CatalogEntry => {
    const item = index.get(name);
    if (!item || !visibilityFor(authz, actor)(item.entry)) throw notFound('rgd', name);
    return item.entry;
  };

  const catalog: Catalog = {
    list,

    get(actor, name) {
      const entry = visibleEntry(actor, name);
      const instances = instanceCountsFor(actor, [name]).get(name) ?? 0;
      return toRgdDetail(entry, instances, visibleSchema(entry));
    },

    formSchema(actor, name) {
      const entry = visibleEntry(actor, name);
      return {
        rgd: toRgd(entry, instanceCountsFor(actor, [name]).get(name) ?? 0),
        schema: formSchemaOf(entry, catalog.schemaOf(entry)),
        crdFound: entry.status === 'Active',
      };
    },

    graph(actor, name) {
      return graphOf(visibleEntry(actor, name));
    },

    revisions(actor, name) {
      return revisions.list(visibleEntry(actor, name));
    },

    async revision(actor, name, revisionNumber) {
      return revisions.detail(visibleEntry(actor, name), revisionNumber);
    },

    async revisionDiff(actor, name, a, b) {
      return revisions.diff(visibleEntry(actor, name), a, b);
    },

    revisionRecords: (name) => revisions.records(name),
    onRevision: (listener) => revisions.onNotice(listener),
    revisionsIdle: () => revisions.idle(),

    count(actor) {
      return { count: views.visibleSortedBy(actor, 'name', 'asc').length };
    },

    filters: views.filters,

    entry(name) {
      return index.get(name)?.entry;
    },

    entries() {
      return index.sortedBy('name', 'asc').map((i) => i.entry);
    },

    entryForKind(kind, group) {
      const candidates = index.ofKind(kind);
      return group === undefined ? candidates[0] : candidates.find((e) => e.group === group);
    },

    schemaOf(entry) {
      const result = schemas.compile(entry);
      if (!result.ok) throw unprocessable(`rgd "${entry.name}" has an invalid schema: ${result.error}`, { rgd: entry.name });
      return result.schema;
    },

    visibleTo(actor, entry) {
      return visibilityFor(authz, actor)(entry);
    },

    onChange: index.onChange,

    close() {
      index.close();
      views.close();
      revisions.close();
    },
  };
  return catalog;
}
