import type { EnterpriseRouteDef } from './route-def.js';
import { auditRoutes } from './audit.js';
import { complianceRoutes } from './compliance.js';
import { complianceHistoryRoutes } from './compliance-history.js';
import { ApplyLicenseRequest, LicenseStatus } from './license.js';
import { CategoryList, CategoryParams, Category, CreateCategoryRequest, UpdateCategoryRequest } from './categories.js';
import { CreateViewRequest, UpdateViewRequest, View, ViewDetail, ViewDetailQuery, ViewList, ViewParams } from './views.js';

const r = <const T extends EnterpriseRouteDef>(def: T) => def;

/** The routes of contract §12.1, §12.3 and §12.4. */
const licenseCategoryViewRoutes = [
  // §12.1 license
  r({ id: 'getLicense', method: 'GET', path: '/api/v1/license', auth: 'user', tag: 'license', summary: 'License status, features and seats', status: 200, response: LicenseStatus , family: 'license' }),
  r({ id: 'applyLicense', method: 'POST', path: '/api/v1/license', auth: 'user', tag: 'license', summary: 'Install a license (Server Admin); every replica applies it within seconds', body: ApplyLicenseRequest, status: 200, response: LicenseStatus , family: 'license', operation: 'license.apply' }),
  // §12.3 categories
  r({ id: 'listCategories', method: 'GET', path: '/api/v1/categories', auth: 'user', tag: 'categories', summary: 'Categories with the number of RGDs the caller may see', status: 200, response: CategoryList, feature: 'categories' , family: 'categories' }),
  r({ id: 'getCategory', method: 'GET', path: '/api/v1/categories/{slug}', auth: 'user', tag: 'categories', summary: 'One category', params: CategoryParams, status: 200, response: Category, feature: 'categories' , family: 'categories' }),
  r({ id: 'createCategory', method: 'POST', path: '/api/v1/categories', auth: 'user', tag: 'categories', summary: 'Create a category (Server Admin)', body: CreateCategoryRequest, status: 201, response: Category, feature: 'categories' , family: 'categories', operation: 'categories.create' }),
  r({ id: 'updateCategory', method: 'PUT', path: '/api/v1/categories/{slug}', auth: 'user', tag: 'categories', summary: 'Change a category (Server Admin)', params: CategoryParams, body: UpdateCategoryRequest, status: 200, response: Category, feature: 'categories' , family: 'categories', operation: 'categories.update' }),
  r({ id: 'deleteCategory', method: 'DELETE', path: '/api/v1/categories/{slug}', auth: 'user', tag: 'categories', summary: 'Delete a category (Server Admin)', params: CategoryParams, status: 204, feature: 'categories' , family: 'categories', operation: 'categories.delete' }),
  // §12.4 views
  r({ id: 'listViews', method: 'GET', path: '/api/v1/ee/views', auth: 'user', tag: 'views', summary: 'Shared views and the caller\'s own', status: 200, response: ViewList, feature: 'views' , family: 'views' }),
  r({ id: 'getView', method: 'GET', path: '/api/v1/ee/views/{slug}', auth: 'user', tag: 'views', summary: 'A view with one page of the RGDs it selects', params: ViewParams, query: ViewDetailQuery, status: 200, response: ViewDetail, feature: 'views' , family: 'views' }),
  r({ id: 'createView', method: 'POST', path: '/api/v1/ee/views', auth: 'user', tag: 'views', summary: 'Save a view (shared ones: Server Admin)', body: CreateViewRequest, status: 201, response: View, feature: 'views' , family: 'views', operation: 'views.create' }),
  r({ id: 'updateView', method: 'PUT', path: '/api/v1/ee/views/{slug}', auth: 'user', tag: 'views', summary: 'Change a view (own, or shared as Server Admin)', params: ViewParams, body: UpdateViewRequest, status: 200, response: View, feature: 'views' , family: 'views', operation: 'views.update' }),
  r({ id: 'deleteView', method: 'DELETE', path: '/api/v1/ee/views/{slug}', auth: 'user', tag: 'views', summary: 'Delete a view (own, or shared as Server Admin)', params: ViewParams, status: 204, feature: 'views' , family: 'views', operation: 'views.delete' }),
] as const satisfies readonly EnterpriseRouteDef[];

/**
 * The one Enterprise route table (§12): license, categories, views, the audit trail in both forms, compliance
 * and its history. It lives in this package so the OSS build contains none of it; the server dispatches it
 * through the same router and pipeline as the OSS table, and each row names the family of §8 it serves.
 */
export const enterpriseRoutes = [...licenseCategoryViewRoutes, ...auditRoutes, ...complianceRoutes, ...complianceHistoryRoutes];

export type EnterpriseRouteRow = (typeof enterpriseRoutes)[number];
export type EnterpriseRouteId = EnterpriseRouteRow['id'];
