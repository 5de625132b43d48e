import type { RbacVocabulary } from '@portico/api';
import { conflict, forbidden, notFound, type Actor, type Authorizer } from '@portico/core';
import type { CreateViewRequest, UpdateViewRequest, View, ViewDetail, ViewDetailQuery, ViewList } from '@portico/api/enterprise';
import { rgdPage, selectRgds, type ViewCatalog } from './filter.js';
import type { StoredView, ViewStore } from './store.js';

export interface ViewsService {
  list(actor: Actor): Promise<ViewList>;
  get(actor: Actor, slug: string, query: ViewDetailQuery): Promise<ViewDetail>;
  create(actor: Actor, input: CreateViewRequest): Promise<View>;
  update(actor: Actor, slug: string, input: UpdateViewRequest): Promise<View>;
  delete(actor: Actor, slug: string): Promise<void>;
}

/** RBAC object of shared views: Server Admins by default, grantable by global policy. */

/**
 * Saved catalog views (contract §12.4): a caller sees the shared ones and its own; somebody else's private
 * view is a 404, never a 403, and never a 409 either: private slugs are per owner, so creating one says nothing
 * about anybody else's. Counts and RGD lists are the caller's view of the catalog, filtered by its own policies.
 */
export function createViews(deps: { store: ViewStore; catalog: ViewCatalog; authz: Pick<Authorizer, 'can'>; vocabulary: Pick<RbacVocabulary, 'object'> }): ViewsService {
  const sharedViews = deps.vocabulary.object('views');
  const withCount = (actor: Actor, view: StoredView): View => ({ ...view, count: selectRgds(deps.catalog, actor, view.filter).length });
  /** What `slug` names for the caller: their own private view of it, else the shared one; never somebody else's. */
  const readable = async (actor: Actor, slug: string) => {
    const view = await deps.store.get(slug, actor.id);
    if (!view || (!view.shared && view.owner !== actor.id)) throw notFound('view', slug);
    return view;
  };
  /** Own private views are the owner's; anything shared (before or after the change) needs the shared-views right. */
  const mayChange = (actor: Actor, action: string, view: Pick<StoredView, 'shared' | 'owner'>, sharing = false) => {
    if ((view.shared || sharing) && !deps.authz.can(actor, action, sharedViews)) throw forbidden('shared views are managed by a Server Admin');
  };

  return {
    async list(actor) {
      const items = (await deps.store.visibleTo(actor.id)).map((view) => withCount(actor, view));
      return { items, totalCount: items.length };
    },
    async get(actor, slug, query) {
      const view = await readable(actor, slug);
      const selected = selectRgds(deps.catalog, actor, view.filter);
      return { ...view, count: selected.length, rgds: rgdPage(deps.catalog, actor, selected, query) };
    },
    async create(actor, input) {
      mayChange(actor, 'create', { shared: input.shared, owner: actor.id });
      const { slug, name, icon, description, order, shared, filter } = input;
      // A slug is taken only by what the caller can see under it (their own private view, or a shared one), so the
      // 409 tells nothing new; somebody else's private view of the same slug is theirs alone and does not collide.
      if (await deps.store.get(slug, actor.id)) throw conflict(`view "${slug}" already exists`, { slug });
      return withCount(actor, await deps.store.insert({ slug, name, icon, description, order, shared, filter, owner: actor.id }));
    },
    async update(actor, slug, input) {
      const view = await readable(actor, slug);
      mayChange(actor, 'update', view, input.shared === true);
      return withCount(actor, await deps.store.replace({ ...view, ...definedOnly(input) }, view));
    },
    async delete(actor, slug) {
      const view = await readable(actor, slug);
      mayChange(actor, 'delete', view);
      await deps.store.delete(view);
    },
  };
}

const definedOnly = <T extends object>(input: T): Partial<T> => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
