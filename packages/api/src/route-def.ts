import type { z } from 'zod';
import type { OperationId } from './operations.js';

/**
 * What a route row is, in a file of its own: routes.ts gathers the rows of every topic module
 * (`routes-<topic>.ts`), and each of those builds its rows with `r` from here, so none imports the table.
 */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which per-IP rate-limit bucket of §9 a route uses; routes without one fall under the per-user limit. */
export type RateLimitBucket = 'login' | 'oidcLogin' | 'oidcCallback' | 'ssoProviders' | 'namespaces';

export interface RouteDef {
  /** Stable operation id: the server's handler key, the OpenAPI operationId and the client's method name source. */
  id: string;
  method: HttpMethod;
  /** OpenAPI-style path, `{param}` placeholders. */
  path: string;
  auth: 'none' | 'user';
  tag: string;
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success status and body; `undefined` response means no body (204) or a redirect (302). */
  status: number;
  response?: z.ZodType;
  rateLimit?: RateLimitBucket;
  /** The Enterprise family (§8) a row of the Enterprise table serves: where it is, the OSS build answers for it. */
  family?: EnterpriseFamilyName;
  /** A placeholder of an Enterprise family in the OSS OpenAPI document (built from `enterpriseFamilies`). */
  enterprise?: { feature: string; ossStatus: 402 | 404 };
  /**
   * The operation a mutating route performs (an id of the operation vocabulary, `operations.ts`). Core records
   * it when the service method runs; the server only adds the request's facts. Every route that is not a GET
   * names one, or is `readOnly`.
   */
  operation?: string;
  /**
   * A POST that changes nothing (a dry-run check such as compliance validate): not an operation, so the audit
   * trail does not record it, as it does not record a GET.
   */
  readOnly?: true;
}

/**
 * Declares one route row, keeping its literal types (ids, paths, schemas) for the typed handlers and the SDK.
 * Topic modules (`routes-<topic>.ts`) build their rows with it; routes.ts gathers them.
 */
export const r = <const T extends RouteDef & { operation?: OperationId }>(def: T) => def;

/**
 * An Enterprise family of contract §8: a path and everything below it, the license feature behind it, and what
 * the OSS build answers there. The Enterprise route table assigns each of its rows to one of these families
 * (a test holds the two together), so the OSS placeholders and the Enterprise routes are one list.
 */
export interface EnterpriseFamily {
  prefix: string;
  feature: string;
  ossStatus: 402 | 404;
}

const family = (prefix: string, feature: string, ossStatus: 402 | 404): EnterpriseFamily => Object.freeze({ prefix, feature, ossStatus });

/** The families in the order the gate tries them (a longer prefix before one it starts with). */
export const enterpriseFamilies = Object.freeze({
  compliance: family('/api/v1/compliance', 'compliance', 402),
  audit: family('/api/v1/audit', 'audit', 402),
  auditSettings: family('/api/v1/settings/audit', 'audit', 404),
  categories: family('/api/v1/categories', 'categories', 402),
  license: family('/api/v1/license', 'license', 402),
  gatekeeper: family('/api/v1/gatekeeper', 'gatekeeper', 404),
  views: family('/api/v1/ee/views', 'views', 404),
});

export type EnterpriseFamilyName = keyof typeof enterpriseFamilies;
