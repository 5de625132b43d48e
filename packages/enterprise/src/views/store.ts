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

export interface ViewStore {
  /** Shared views and the owner's own, by `order` then name. */
  visibleTo(owner: string): Promise<StoredView[]>;
  get(slug: string): Promise<StoredView | undefined>;
  insert(view: StoredView): Promise<StoredView>;
  replace(view: StoredView): Promise<StoredView>;
  delete(slug: string): Promise<void>;
}

/** A row has the view's own columns (the filter is jsonb), under the same names. */
type Row = StoredView;

const COLUMNS = `slug, name, icon, description, "order", shared, owner, filter`;
// Filters written by an older version gain the defaults of the current schema.
const fromRow = (row: Row): StoredView => ({ ...row, filter: ViewFilter.parse(row.filter) });
const UNIQUE_VIOLATION = '23505';

/** Saved views in PostgreSQL (contract §12.4). Slugs are unique across owners: one URL, one view. */
export function createViewStore(db: Pick<Database, 'use'>): ViewStore {
  return {
    visibleTo: (owner) =>
      db.use(async (pool) => (await pool.query<Row>(`SELECT ${COLUMNS} FROM catalog_views WHERE shared OR owner = $1 ORDER BY "order", name, slug`, [owner])).rows.map(fromRow)),
    get: (slug) => db.use(async (pool) => (await pool.query<Row>(`SELECT ${COLUMNS} FROM catalog_views WHERE slug = $1`, [slug])).rows.map(fromRow)[0]),
    insert: (view) =>
      db.use(async (pool) => {
        try {
          const { rows } = await pool.query<Row>(
            `INSERT INTO catalog_views (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
            [view.slug, view.name, view.icon, view.description, view.order, view.shared, view.owner, JSON.stringify(view.filter)],
          );
          return fromRow(rows[0]);
        } catch (error) {
          if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw conflict(`view "${view.slug}" already exists`, { slug: view.slug });
          throw error;
        }
      }),
    replace: (view) =>
      db.use(async (pool) => {
        const { rows } = await pool.query<Row>(
          `UPDATE catalog_views SET name = $2, icon = $3, description = $4, "order" = $5, shared = $6, filter = $7, updated_at = now() WHERE slug = $1 RETURNING ${COLUMNS}`,
          [view.slug, view.name, view.icon, view.description, view.order, view.shared, JSON.stringify(view.filter)],
        );
        return fromRow(rows[0]);
      }),
    delete: (slug) =>
      db.use(async (pool) => {
        await pool.query(`DELETE FROM catalog_views WHERE slug = $1`, [slug]);
      }),
  };
}
