import type { Category, CategoryList, CreateCategoryRequest, UpdateCategoryRequest } from '@portico/api/enterprise';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** §12.3 catalog categories (Enterprise); changes need a Server Admin. */
export interface CategoriesApi {
  list(opts?: CallOptions): Promise<Category[]>;
  get(slug: string, opts?: CallOptions): Promise<Category>;
  create(input: CreateCategoryRequest, opts?: CallOptions): Promise<Category>;
  update(slug: string, input: UpdateCategoryRequest, opts?: CallOptions): Promise<Category>;
  delete(slug: string, opts?: CallOptions): Promise<void>;
}

export const categoriesApi = (call: Transport): CategoriesApi => ({
  list: async (opts) => (await call('listCategories', {}, opts)).categories,
  get: (slug, opts) => call('getCategory', { params: { slug } }, opts),
  create: (input, opts) => call('createCategory', { body: input }, opts),
  update: (slug, input, opts) => call('updateCategory', { params: { slug }, body: input }, opts),
  delete: async (slug, opts) => void (await call('deleteCategory', { params: { slug } }, opts)),
});
