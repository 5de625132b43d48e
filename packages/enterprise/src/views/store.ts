import { conflict } from '@portico/core';
import { ViewFilter } from '@portico/api/enterprise';
import type { Database } from '../db/health.js';

export interface StoredView {
  slug: string;
  name: string;
  icon: string;
  description: string;
  order: number;
  shared: boolean;
  owner: string;
  filter: ViewFilter;
}

/**
 * Saved views. Slugs are scoped: a shared view's slug is one for everybody, a private view's is its owner's own
 * (two people may each keep a private `mine`). For one caller a slug names their own private view if they have
 * one, else the shared view of that slug: `visibleTo` and `get` agree on that.
 */
export interface ViewStore {
  /** The owner's own views and the shared ones (but those the owner's own of the same slug stand in for), by `order` then name. */
  visibleTo(owner: string): Promise<StoredView[]>;
  /** What `slug` names for `owner`: their private view of that slug, else the shared one. */
  get(slug: string, owner: string): Promise<StoredView | undefined>;
  /** CONFLICT when the slug is taken in the view's scope (the owner's own private views, or the shared ones). */
  insert(view: StoredView): Promise<StoredView>;
  /** Replaces `previous` (found by its slug and scope) with `view`; CONFLICT as insert when sharing moves it. */
  replace(view: StoredView, previous: Pick<StoredView, 'slug' | 'shared' | 'owner'>): Promise<StoredView>;
  delete(view: Pick<StoredView, 'slug' | 'shared' | 'owner'>): Promise<void>;
}

/** The key column beside the slug: '' for a shared view, the owner for a private one (see the migration). */
const scopeOf = (view: Pick<StoredView, 'shared' | 'owner'>) => (view.shared ? '' : view.owner);

/** A row has the view's own columns (the filter is jsonb), under the same names. */
type Row = StoredView;

const COLUMNS = `slug, name, icon, description, "order", shared, owner, filter`;
// Filters written by an older version gain the defaults of the current schema.
const fromRow = (row: Row): StoredView => ({ ...row, filter: ViewFilter.parse(row.filter) });
const UNIQUE_VIOLATION = '23505';

const taken = (view: Pick<StoredView, 'slug'>) => conflict(`view "${view.slug}" already exists`, { slug: view.slug });

/** Saved views in PostgreSQL (contract §12.4), keyed by slug and scope (see ViewStore). */
export function createViewStore(db: Pick<Database, 'use'>): ViewStore {
  return {
    visibleTo: (owner) =>
      db.use(async (pool) =>
        (await pool.query<Row>(
          `SELECT ${COLUMNS} FROM catalog_views v
            WHERE scope = $1 OR (scope = '' AND NOT EXISTS (SELECT 1 FROM catalog_views mine WHERE mine.slug = v.slug AND mine.scope = $1))
            ORDER BY "order", name, slug`,
          [owner],
        )).rows.map(fromRow)),
    get: (slug, owner) =>
      db.use(async (pool) =>
        (await pool.query<Row>(`SELECT ${COLUMNS} FROM catalog_views WHERE slug = $1 AND scope IN ($2, '') ORDER BY scope = '' LIMIT 1`, [slug, owner])).rows.map(fromRow)[0]),
    insert: (view) =>
      db.use(async (pool) => {
        try {
          const { rows } = await pool.query<Row>(
            `INSERT INTO catalog_views (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
            [view.slug, view.name, view.icon, view.description, view.order, view.shared, view.owner, JSON.stringify(view.filter)],
          );
          return fromRow(rows[0]);
        } catch (error) {
          if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw taken(view);
          throw error;
        }
      }),
    replace: (view, previous) =>
      db.use(async (pool) => {
        try {
          const { rows } = await pool.query<Row>(
            `UPDATE catalog_views SET name = $3, icon = $4, description = $5, "order" = $6, shared = $7, filter = $8, updated_at = now()
              WHERE slug = $1 AND scope = $2 RETURNING ${COLUMNS}`,
            [previous.slug, scopeOf(previous), view.name, view.icon, view.description, view.order, view.shared, JSON.stringify(view.filter)],
          );
          return fromRow(rows[0]);
        } catch (error) {
          if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw taken(view);
          throw error;
        }
      }),
    delete: (view) =>
      db.use(async (pool) => {
        await pool.query(`DELETE FROM catalog_views WHERE slug = $1 AND scope = $2`, [view.slug, scopeOf(view)]);
      }),
  };
}
