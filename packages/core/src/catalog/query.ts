import { matchesLabelSelector } from '@portico/api';
import type * as api from '@portico/api';
import { labelRequirements } from '../label-selector.js';
import { commaList } from './annotations.js';
import type { CatalogEntry } from './types.js';

/** A catalog entry with the derived values list queries compare against, computed once per informer event. */
export interface IndexedEntry {
  entry: CatalogEntry;
  nameLower: string;
  categoryLower: string;
  statusLower: string;
  /** name, title and description, lower-cased, joined with a separator no search term can span. */
  searchText: string;
  tagsLower: Set<string>;
  extendsLower: Set<string>;
  createdMs: number;
  updatedMs: number;
}

export function indexEntry(entry: CatalogEntry): IndexedEntry {
  return {
    entry,
    nameLower: entry.name.toLowerCase(),
    categoryLower: entry.category.toLowerCase(),
    statusLower: entry.status.toLowerCase(),
    searchText: [entry.name, entry.title, entry.description].join('\u0000').toLowerCase(),
    tagsLower: new Set(entry.tags.map((t) => t.toLowerCase())),
    extendsLower: new Set(entry.extendsKinds.map((k) => k.toLowerCase())),
    createdMs: Date.parse(entry.createdAt) || 0,
    updatedMs: Date.parse(entry.updatedAt) || 0,
  };
}

export type RgdFilterQuery = Pick<api.RgdListQuery, 'category' | 'search' | 'extendsKind' | 'tags' | 'status' | 'project' | 'labelSelector'>;

/**
 * The list filters of contract §3, AND-combined and case-insensitive (but the label selector, whose keys and
 * values are compared exactly, as Kubernetes does); an empty filter matches everything.
 */
export function matcherFor(query: Partial<RgdFilterQuery>): (item: IndexedEntry) => boolean {
  const checks: Array<(item: IndexedEntry) => boolean> = [];
  const selector = labelRequirements(query.labelSelector);
  if (selector) checks.push((i) => matchesLabelSelector(selector, i.entry.labels));
  const category = query.category?.trim().toLowerCase();
  if (category) checks.push((i) => i.categoryLower === category);
  const search = query.search?.trim().toLowerCase();
  if (search) checks.push((i) => i.searchText.includes(search));
  const extendsKind = query.extendsKind?.trim().toLowerCase();
  if (extendsKind) checks.push((i) => i.extendsLower.has(extendsKind));
  const tags = commaList(query.tags).map((t) => t.toLowerCase());
  if (tags.length > 0) checks.push((i) => tags.every((t) => i.tagsLower.has(t)));
  const status = query.status?.trim().toLowerCase();
  if (status) checks.push((i) => i.statusLower === status);
  const project = query.project?.trim();
  if (project) checks.push((i) => i.entry.project === project);
  return (item) => checks.every((check) => check(item));
}

export type RgdSortBy = api.RgdListQuery['sortBy'];
export type SortOrder = api.RgdListQuery['sortOrder'];

const byName = (a: IndexedEntry, b: IndexedEntry) => (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0);

const primary: Record<RgdSortBy, (a: IndexedEntry, b: IndexedEntry) => number> = {
  name: () => 0,
  createdAt: (a, b) => a.createdMs - b.createdMs,
  updatedAt: (a, b) => a.updatedMs - b.updatedMs,
  category: (a, b) => (a.categoryLower < b.categoryLower ? -1 : a.categoryLower > b.categoryLower ? 1 : 0),
};

export const isRgdSortBy = (value: unknown): value is RgdSortBy => typeof value === 'string' && Object.hasOwn(primary, value);

/** Orders by the sort key in `order`; ties are broken by name, ascending, so pages are stable. */
export function comparatorFor(sortBy: RgdSortBy, order: SortOrder): (a: IndexedEntry, b: IndexedEntry) => number {
  const compare = primary[sortBy];
  const sign = order === 'desc' ? -1 : 1;
  if (sortBy === 'name') return (a, b) => sign * byName(a, b);
  return (a, b) => sign * compare(a, b) || byName(a, b);
}
