import { catalogPrefixes } from '@portico/api';

/** The annotation and label keys of catalog metadata, without prefix. */
export type CatalogKey =
  | 'catalog'
  | 'title'
  | 'description'
  | 'tags'
  | 'category'
  | 'icon'
  | 'docs-url'
  | 'deployment-modes'
  | 'extends-kind'
  | 'updated-at'
  | 'updated-by'
  | 'property-order'
  | 'project';

/**
 * Reads `<prefix>/<key>` from a metadata map, trying `portico.dev` first and then the `knodex.io` alias, so an
 * existing catalog works unchanged and our own prefix wins when both are set.
 */
export function prefixedValue(map: Record<string, string> | undefined, key: CatalogKey): string | undefined {
  if (!map) return undefined;
  for (const prefix of catalogPrefixes) {
    const value = map[`${prefix}/${key}`];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** A comma list, trimmed, empty items dropped, duplicates removed (first occurrence kept). */
export function commaList(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))];
}
