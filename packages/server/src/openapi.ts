import * as api from '@portico/api';
import { routes, type RouteDef } from '@portico/api';
import { stringify } from 'yaml';
import { z } from 'zod';

/**
 * OpenAPI 3.0.3 for every route of the table, generated from the same zod schemas the server validates
 * with. The checked-in `openapi.yaml` is this document (a test fails when it is stale).
 */

type Json = Record<string, unknown>;

const target = 'openapi-3.0';
const componentRef = (name: string) => `#/components/schemas/${name}`;
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Every exported object schema of @portico/api by its export name: the names of components. */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(api).sort(([a], [b]) => a.localeCompare(b))) {
    if (value instanceof z.ZodObject && !names.has(value)) names.set(value, name);
  }
  return names;
}

const safeBound = Number.MAX_SAFE_INTEGER;

/**
 * Drops what OpenAPI 3.0 does not know (`$id`, `$schema`) and zod's ±2^53 bounds on every integer, which
 * say nothing to a reader.
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value as Json)) {
    if (key === '$id' || key === '$schema') continue;
    if ((key === 'minimum' && v === -safeBound) || (key === 'maximum' && v === safeBound)) continue;
    out[key] = tidy(v);
  }
  return out;
}

/**
 * A schema may state how it reads in the document (`.meta({openapi: {...}})`): a query number that accepts a
 * decimal string or a number is, to a reader, just an integer.
 */
const documented: NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override'] = (ctx) => {
  const stated = (z.globalRegistry.get(ctx.zodSchema) as { openapi?: Json } | undefined)?.openapi;
  if (!stated) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
  Object.assign(ctx.jsonSchema, stated);
};

function inputSchema(schema: z.ZodType): Json {
  return tidy(z.toJSONSchema(schema, { target, io: 'input', unrepresentable: 'any', override: documented })) as Json;
}

function outputSchema(schema: z.ZodType, names: Map<z.ZodType, string>): Json {
  const name = names.get(schema);
  if (name) return { $ref: componentRef(name) };
  return tidy(z.toJSONSchema(schema, { target, io: 'output', unrepresentable: 'any' })) as Json;
}

/** Components for every named schema reachable from the operations (and the error envelope). */
function components(names: Map<z.ZodType, string>, paths: Json): Json {
  const registry = z.registry<{ id: string }>();
  for (const [schema, name] of names) registry.add(schema, { id: name });
  const all = (z.toJSONSchema(registry, { target, io: 'output', unrepresentable: 'any', uri: componentRef }) as { schemas: Json })
    .schemas;

  const wanted = new Set<string>(['ErrorEnvelope']);
  const visit = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value as Json)) {
      if (key === '$ref' && typeof v === 'string' && v.startsWith(componentRef(''))) {
        const name = v.slice(componentRef('').length);
        if (!wanted.has(name)) {
          wanted.add(name);
          visit(all[name]);
        }
      } else visit(v);
    }
  };
  visit(paths);
  visit(all.ErrorEnvelope);
  return Object.fromEntries([...wanted].sort().map((name) => [name, tidy(all[name])]));
}

function parametersOf(route: RouteDef): Json[] {
  const out: Json[] = [];
  const add = (schema: z.ZodObject | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const json = inputSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  };
  add(route.params, 'path');
  add(route.query, 'query');
  return out;
}

const errorResponses = {
  BadRequest: 'Bad request or validation failed (`BAD_REQUEST`, `VALIDATION_FAILED` with `details.fields`)',
  Unauthorized: 'Missing, invalid, expired or revoked credentials (`UNAUTHORIZED`)',
  LicenseRequired: 'An Enterprise feature in the OSS build (`LICENSE_REQUIRED`, `details.feature`)',
  Forbidden: 'The caller may not do this (`FORBIDDEN`)',
  NotFound: 'No such resource (`NOT_FOUND`, `details.resource` and `details.identifier`)',
  Conflict: 'Already exists or stale resourceVersion (`CONFLICT`)',
  PayloadTooLarge: 'Request body over 1 MiB (`PAYLOAD_TOO_LARGE`)',
  Unprocessable: 'Valid but not allowed here (`UNPROCESSABLE`, `DEPLOYMENT_MODE_NOT_ALLOWED`)',
  TooManyRequests: 'Rate limit exceeded (`RATE_LIMIT_EXCEEDED`); retry after `Retry-After` seconds',
  InternalError: 'Unexpected error (`INTERNAL_ERROR`); no internal detail is returned',
  ServiceUnavailable: 'A dependency is down (`SERVICE_UNAVAILABLE`); retry after `Retry-After` seconds',
} as const;

const retryAfterHeader = { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer' } } };

function errorResponseComponents(): Json {
  const envelope = { 'application/json': { schema: { $ref: componentRef('ErrorEnvelope') } } };
  return Object.fromEntries(
    Object.entries(errorResponses).map(([name, description]) => [
      name,
      {
        description,
        ...(name === 'TooManyRequests' || name === 'ServiceUnavailable' ? { headers: retryAfterHeader } : {}),
        content: envelope,
      },
    ]),
  );
}

const writes = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Which error answers an operation can give, from what the route declares. */
function errorsOf(route: RouteDef): Record<string, Json> {
  const user = route.auth === 'user';
  const gated = route.enterprise !== undefined;
  const errors: Record<string, Json> = {};
  if (route.params || route.query || route.body) errors['400'] = responseRef('BadRequest');
  if (user || route.rateLimit === 'login') errors['401'] = responseRef('Unauthorized');
  if (route.enterprise?.ossStatus === 402) errors['402'] = responseRef('LicenseRequired');
  if (user && !gated) errors['403'] = responseRef('Forbidden');
  if ((route.params && !gated) || route.enterprise?.ossStatus === 404) errors['404'] = responseRef('NotFound');
  if (user && !gated && writes.has(route.method)) errors['409'] = responseRef('Conflict');
  if (route.body) errors['413'] = responseRef('PayloadTooLarge');
  if (route.tag === 'instances' && route.method === 'POST') errors['422'] = responseRef('Unprocessable');
  if (user || route.rateLimit) errors['429'] = responseRef('TooManyRequests');
  errors['500'] = responseRef('InternalError');
  if (route.tag !== 'operations') errors['503'] = responseRef('ServiceUnavailable');
  return errors;
}

const setCookieHeader = {
  'Set-Cookie': {
    description: 'The session cookie `portico_session` (HttpOnly; Path=/api; SameSite=Strict)',
    schema: { type: 'string' },
  },
};

function successOf(route: RouteDef, names: Map<z.ZodType, string>): Record<string, Json> {
  const status = String(route.status);
  if (route.status === 302) {
    return { '302': { description: 'Redirect', headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } } } };
  }
  if (!route.response) {
    return { [status]: { description: route.enterprise ? 'Served by Portico Enterprise' : 'No content' } };
  }
  const content = { 'application/json': { schema: outputSchema(route.response, names) } };
  const cookie = route.response === api.LoginResponse || route.id === 'logout';
  const out: Record<string, Json> = { [status]: { description: 'Success', ...(cookie ? { headers: setCookieHeader } : {}), content } };
  // Readiness answers 503 with the same body, naming the failing components.
  if (route.response === api.Readyz) out['503'] = { description: 'Not ready', content };
  return out;
}

function operationOf(route: RouteDef, names: Map<z.ZodType, string>): Json {
  const parameters = parametersOf(route);
  return {
    operationId: route.id,
    tags: [route.tag],
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: inputSchema(route.body) } } } }
      : {}),
    responses: { ...successOf(route, names), ...errorsOf(route) },
    ...(route.auth === 'user' ? { security: [{ bearerAuth: [] }, { cookieAuth: [] }] } : {}),
  };
}

const ossInfo = {
  title: 'Portico API',
  description:
    'Self-service platform API for Kubernetes teams: a catalog of kro ResourceGraphDefinitions, projects with policy-based RBAC and instances. Every error is the JSON envelope `{code, message, details, requestId}`.',
};

/**
 * The rows an edition serves: the OSS table, with the OSS placeholder rows of §8 dropped where a plugin's rows
 * serve that family (the Enterprise document describes the real routes, not the 402).
 */
export function servedRows(extra: readonly RouteDef[]): RouteDef[] {
  const served = new Set(extra.flatMap((r) => (r.family ? [r.family] : [])));
  const placeholders = (Object.entries(api.enterpriseFamilies) as [api.EnterpriseFamilyName, api.EnterpriseFamily][])
    .filter(([name, family]) => !served.has(name) && family.ossStatus === 402)
    .map(([name, family]) => familyPlaceholder(name, family));
  return [...(routes as readonly RouteDef[]), ...placeholders, ...extra];
}

/** What the OSS build documents for a family it answers with 402 (a 404 family is not advertised). */
function familyPlaceholder(name: string, family: api.EnterpriseFamily): RouteDef {
  const whole = name === 'license';
  return {
    id: name, method: 'GET', path: whole ? family.prefix : `${family.prefix}/{path}`, auth: 'user', tag: 'enterprise',
    summary: `${family.feature} (Enterprise; 402 in OSS)`, status: 200, enterprise: { feature: family.feature, ossStatus: family.ossStatus },
    ...(whole ? {} : { params: z.object({ path: z.string() }) }),
  };
}

/** The OpenAPI document of a route table: the OSS one by default, an edition's with its rows and title. */
export function buildOpenApi(table: readonly RouteDef[] = servedRows([]), info: { title: string; description: string } = ossInfo): Json {
  const names = namedSchemas();
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of table) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operationOf(route, names);
  }
  const tags = [...new Set(table.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.0.3',
    info: { title: info.title, version: 'v1', description: info.description },
    servers: [{ url: '/' }],
    tags,
    paths,
    components: {
      schemas: components(names, paths),
      responses: errorResponseComponents(),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token from /api/v1/auth/local/login or the token exchange' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: 'portico_session', description: 'The HttpOnly session cookie set at sign-in' },
      },
    },
  };
}

const header = '# Generated from the route table and schemas of @portico/api by `npm run openapi`. Do not edit.\n';

/** The document as the YAML that is checked in and served at /swagger/openapi.yaml. */
export function openApiYaml(doc: Json = buildOpenApi()): string {
  return header + stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}
