import type { RouteDef } from '../routes.js';
import { ApplyLicenseRequest, LicenseStatus } from './license.js';
import { CategoryList, CategoryParams, Category, CreateCategoryRequest, UpdateCategoryRequest } from './categories.js';
import { CreateViewRequest, UpdateViewRequest, View, ViewDetail, ViewDetailQuery, ViewList, ViewParams } from './views.js';

/**
 * A row of the Enterprise route table: an ordinary route (same schemas, same pipeline, same OpenAPI) plus
 * the license feature that gates it. `feature` absent: not gated (the license routes themselves).
 */
export interface EnterpriseRouteDef extends RouteDef {
  feature?: 'audit' | 'compliance' | 'categories' | 'views' | 'secrets';
}

const r = <const T extends EnterpriseRouteDef>(def: T) => def;

/**
 * The Enterprise routes of contract §12.1, §12.3 and §12.4. They live in this package so the OSS build
 * contains none of them; the server dispatches them through the same router as the OSS table.
 */
export const enterpriseRoutes = [
  // §12.1 license
  r({ id: 'getLicense', method: 'GET', path: '/api/v1/license', auth: 'user', tag: 'license', summary: 'License status, features and seats', status: 200, response: LicenseStatus }),
  r({ id: 'applyLicense', method: 'POST', path: '/api/v1/license', auth: 'user', tag: 'license', summary: 'Install a license (Server Admin); every replica applies it within seconds', body: ApplyLicenseRequest, status: 200, response: LicenseStatus }),
  // §12.3 categories
  r({ id: 'listCategories', method: 'GET', path: '/api/v1/categories', auth: 'user', tag: 'categories', summary: 'Categories with the number of RGDs the caller may see', status: 200, response: CategoryList, feature: 'categories' }),
  r({ id: 'getCategory', method: 'GET', path: '/api/v1/categories/{slug}', auth: 'user', tag: 'categories', summary: 'One category', params: CategoryParams, status: 200, response: Category, feature: 'categories' }),
  r({ id: 'createCategory', method: 'POST', path: '/api/v1/categories', auth: 'user', tag: 'categories', summary: 'Create a category (Server Admin)', body: CreateCategoryRequest, status: 201, response: Category, feature: 'categories' }),
  r({ id: 'updateCategory', method: 'PUT', path: '/api/v1/categories/{slug}', auth: 'user', tag: 'categories', summary: 'Change a category (Server Admin)', params: CategoryParams, body: UpdateCategoryRequest, status: 200, response: Category, feature: 'categories' }),
  r({ id: 'deleteCategory', method: 'DELETE', path: '/api/v1/categories/{slug}', auth: 'user', tag: 'categories', summary: 'Delete a category (Server Admin)', params: CategoryParams, status: 204, feature: 'categories' }),
  // §12.4 views
  r({ id: 'listViews', method: 'GET', path: '/api/v1/ee/views', auth: 'user', tag: 'views', summary: 'Shared views and the caller\'s own', status: 200, response: ViewList, feature: 'views' }),
  r({ id: 'getView', method: 'GET', path: '/api/v1/ee/views/{slug}', auth: 'user', tag: 'views', summary: 'A view with one page of the RGDs it selects', params: ViewParams, query: ViewDetailQuery, status: 200, response: ViewDetail, feature: 'views' }),
  r({ id: 'createView', method: 'POST', path: '/api/v1/ee/views', auth: 'user', tag: 'views', summary: 'Save a view (shared ones: Server Admin)', body: CreateViewRequest, status: 201, response: View, feature: 'views' }),
  r({ id: 'updateView', method: 'PUT', path: '/api/v1/ee/views/{slug}', auth: 'user', tag: 'views', summary: 'Change a view (own, or shared as Server Admin)', params: ViewParams, body: UpdateViewRequest, status: 200, response: View, feature: 'views' }),
  r({ id: 'deleteView', method: 'DELETE', path: '/api/v1/ee/views/{slug}', auth: 'user', tag: 'views', summary: 'Delete a view (own, or shared as Server Admin)', params: ViewParams, status: 204, feature: 'views' }),
] as const satisfies readonly EnterpriseRouteDef[];

export type EnterpriseRouteId = (typeof enterpriseRoutes)[number]['id'];
