import type { RbacVocabulary } from '@portico/api';
import { forbidden, notFound, type Actor, type Authorizer, type CatalogEntry, type Cluster, type Informer } from '@portico/core';
import type { Category, CategoryList, CreateCategoryRequest, UpdateCategoryRequest } from '@portico/api/enterprise';
import { checkedIcon, type IconType } from './icon.js';
import { categoryDefaults, categoryFromObject, categoryObject, categoryResource, slugOf } from './resource.js';

/** The part of the catalog categories need: its entries and the caller's `rgds/<p>/<category>/<name>` visibility. */
export interface CatalogView {
  entries(): CatalogEntry[];
  visibleTo(actor: Actor, entry: CatalogEntry): boolean;
}

export interface CategoriesService {
  list(actor: Actor): CategoryList;
  get(actor: Actor, slug: string): Category;
  create(actor: Actor, input: CreateCategoryRequest): Promise<Category>;
  update(actor: Actor, slug: string, input: UpdateCategoryRequest): Promise<Category>;
  delete(actor: Actor, slug: string): Promise<void>;
}

export interface CategoriesDeps {
  /** This Portico's RBAC vocabulary, which spells the objects asked about. */
  vocabulary: Pick<RbacVocabulary, 'object'>;
  cluster: Cluster;
  /** Watches Category objects: a `kubectl apply` or another replica's write shows here at once. */
  informer: Informer;
  catalog: CatalogView;
  authz: Pick<Authorizer, 'can'>;
}

const byWeightThenName = (a: Category, b: Category) => a.weight - b.weight || a.name.localeCompare(b.name, 'en') || a.slug.localeCompare(b.slug);

/**
 * Categories of contract §12.3. Counts come from the catalog filtered by the caller's own policies, so a
 * role narrowed to `rgds/databases/*` counts only what it can open, and a category used only by RGDs the
 * caller cannot see does not appear at all.
 */
export function createCategories(deps: CategoriesDeps): CategoriesService {
  /** Visible RGDs per category slug, and the first spelling seen for slugs nobody defined. */
  const visibleCounts = (actor: Actor) => {
    const counts = new Map<string, { count: number; name: string }>();
    for (const entry of deps.catalog.entries()) {
      if (!deps.catalog.visibleTo(actor, entry)) continue;
      const slug = slugOf(entry.category);
      const seen = counts.get(slug);
      if (seen) seen.count++;
      else counts.set(slug, { count: 1, name: entry.category });
    }
    return counts;
  };
  const undefinedCategory = (slug: string, name: string, count: number): Category => ({ slug, name, ...categoryDefaults, count });
  const requireAdmin = (actor: Actor, action: string, slug: string) => {
    if (!deps.authz.can(actor, action, deps.vocabulary.object('categories', slug))) throw forbidden(`${action} of categories needs a Server Admin`);
  };

  return {
    list(actor) {
      const counts = visibleCounts(actor);
      const categories = deps.informer.list().map((object) => categoryFromObject(object, counts.get(object.metadata.name)?.count ?? 0));
      const defined = new Set(categories.map((c) => c.slug));
      for (const [slug, { count, name }] of counts) if (!defined.has(slug)) categories.push(undefinedCategory(slug, name, count));
      return { categories: categories.sort(byWeightThenName) };
    },
    get(actor, slug) {
      const counts = visibleCounts(actor);
      const object = deps.informer.get(slug);
      if (object) return categoryFromObject(object, counts.get(slug)?.count ?? 0);
      const used = counts.get(slug);
      if (used) return undefinedCategory(slug, used.name, used.count);
      throw notFound('category', slug);
    },
    async create(actor, input) {
      requireAdmin(actor, 'create', input.slug);
      const icon = checkedIcon(input.icon ?? categoryDefaults.icon, input.iconType ?? categoryDefaults.iconType);
      const created = await deps.cluster.create(categoryResource, categoryObject({ ...input, icon }));
      return categoryFromObject(created, visibleCounts(actor).get(input.slug)?.count ?? 0);
    },
    async update(actor, slug, input) {
      requireAdmin(actor, 'update', slug);
      const current = await deps.cluster.get(categoryResource, slug);
      if (!current) throw notFound('category', slug);
      // The icon as it would be after the change: a new SVG, or a type switched to svg, passes the check first.
      const iconType: IconType = input.iconType ?? (current.spec?.iconType === 'svg' ? 'svg' : 'lucide');
      const icon = input.icon ?? (typeof current.spec?.icon === 'string' ? current.spec.icon : categoryDefaults.icon);
      const spec = input.icon !== undefined || input.iconType !== undefined ? { ...input, icon: checkedIcon(icon, iconType) } : input;
      const patched = await deps.cluster.patch(categoryResource, slug, { spec });
      return categoryFromObject(patched, visibleCounts(actor).get(slug)?.count ?? 0);
    },
    async delete(actor, slug) {
      requireAdmin(actor, 'delete', slug);
      await deps.cluster.delete(categoryResource, slug);
    },
  };
}
