import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { rbacSubject } from '@portico/api';
import type { PorticoConfig } from '../../config.js';
import { PorticoError } from '../../errors.js';

/** Where a provider's client secret comes from; resolved at each code exchange, so rotations apply at once. */
export type ClientSecretSource =
  | { from: 'value'; value: string }
  | { from: 'file'; path: string }
  /** The cluster Secret `portico-oidc`, key `<name>-client-secret`; absent there = a public client (PKCE only). */
  | { from: 'secret'; secret: string; key: string };

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** One identity provider, fully resolved. */
export interface OidcProviderSettings {
  /** Short id: part of the actor id (`oidc:<name>:<sub>`), the login URL and the secret key. */
  name: string;
  displayName: string;
  issuer: string;
  clientId: string;
  clientSecret: ClientSecretSource;
  /** Forced client authentication at the token endpoint; otherwise chosen from discovery. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  scopes: string[];
  /** The claim holding the user's groups; a dotted path (`realm_access.roles`) reaches into an object. */
  groupsClaim: string;
  /** Members of these groups are Server Admins (`group:<g>` entries of the Authorizer's `serverAdmins`). */
  serverAdminGroups: string[];
  /** `<publicUrl>/api/v1/auth/oidc/callback` unless set per provider. */
  redirectUri: string;
  /** Endpoints set by hand (all three): no discovery document is fetched. */
  endpoints?: { authorization: string; token: string; jwks: string };
  /** A provider of the environment: the setting that defines it (it cannot be changed through the API). */
  setting?: string;
  /**
   * A provider managed at run time: the uid of its ConfigMap. A sign-in started with one provider finishes
   * only with that same one, so removing a provider (even for another of the same name) ends its sign-ins.
   */
  uid?: string;
}

export const OIDC_SECRET = 'portico-oidc';
export const clientSecretKey = (provider: string) => `${provider}-client-secret`;
const CALLBACK_PATH = '/api/v1/auth/oidc/callback';
export const DEFAULT_SCOPES = ['openid', 'profile', 'email', 'groups'];
export const DEFAULT_GROUPS_CLAIM = 'groups';

const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.hash;
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without credentials or fragment');

const scopeList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'invalid scope')).max(50));

const groupList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().max(253).refine(noControl, 'must not contain control characters')));

const ProviderEntry = z
  .object({
    name: z.string().max(40).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lower-case letters, digits and "-"'),
    displayName: z.string().min(1).max(100).refine(noControl, 'must not contain control characters').optional(),
    issuer: httpUrl,
    clientId: z.string().min(1).max(512).refine(noControl, 'must not contain control characters'),
    clientSecret: z.string().min(1).max(4096).optional(),
    clientSecretFile: z.string().min(1).optional(),
    tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post', 'none']).optional(),
    scopes: scopeList.optional(),
    groupsClaim: z.string().min(1).max(200).regex(/^[^\s]+$/, 'must not contain spaces').optional(),
    serverAdminGroups: groupList.optional(),
    redirectUri: httpUrl.optional(),
  })
  .strict()
  .refine((p) => !(p.clientSecret && p.clientSecretFile), { message: 'set clientSecret or clientSecretFile, not both', path: ['clientSecret'] });

type ProviderEntry = z.infer<typeof ProviderEntry>;

const ConfigFile = z.union([
  z.array(ProviderEntry),
  z.object({ providers: z.array(ProviderEntry) }).strict().transform((f) => f.providers),
]);

const invalid = (variable: string, message: string) =>
  new PorticoError('BAD_REQUEST', `invalid configuration: ${variable}: ${message}`, { variable });

function parseEntries(variable: string, raw: unknown): ProviderEntry[] {
  const parsed = ConfigFile.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw invalid(variable, `${where}${issue.message}`);
}

function readConfigFile(path: string): ProviderEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw invalid('PORTICO_OIDC_CONFIG', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text); // YAML is a superset of JSON: both formats parse here
  } catch {
    throw invalid('PORTICO_OIDC_CONFIG', `${path} is neither valid YAML nor JSON`);
  }
  return parseEntries('PORTICO_OIDC_CONFIG', raw);
}

/** The single provider described by `PORTICO_OIDC_*` variables, if `PORTICO_OIDC_ISSUER` is set. */
function envEntry(env: Record<string, string | undefined>): ProviderEntry | undefined {
  if (!env.PORTICO_OIDC_ISSUER) return undefined;
  if (!env.PORTICO_OIDC_CLIENT_ID) throw invalid('PORTICO_OIDC_CLIENT_ID', 'is required when PORTICO_OIDC_ISSUER is set');
  const entry: Record<string, unknown> = {
    name: env.PORTICO_OIDC_NAME ?? 'oidc',
    displayName: env.PORTICO_OIDC_DISPLAY_NAME,
    issuer: env.PORTICO_OIDC_ISSUER,
    clientId: env.PORTICO_OIDC_CLIENT_ID,
    clientSecret: env.PORTICO_OIDC_CLIENT_SECRET || undefined,
    clientSecretFile: env.PORTICO_OIDC_CLIENT_SECRET_FILE || undefined,
    scopes: env.PORTICO_OIDC_SCOPES,
    groupsClaim: env.PORTICO_OIDC_GROUPS_CLAIM,
    serverAdminGroups: env.PORTICO_OIDC_SERVER_ADMIN_GROUPS,
    redirectUri: env.PORTICO_OIDC_REDIRECT_URI,
  };
  const clean = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined));
  const parsed = ProviderEntry.safeParse(clean);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue.path[0] ?? 'issuer');
  const variable = {
    name: 'PORTICO_OIDC_NAME', displayName: 'PORTICO_OIDC_DISPLAY_NAME', issuer: 'PORTICO_OIDC_ISSUER', clientId: 'PORTICO_OIDC_CLIENT_ID',
    clientSecret: 'PORTICO_OIDC_CLIENT_SECRET', clientSecretFile: 'PORTICO_OIDC_CLIENT_SECRET_FILE', scopes: 'PORTICO_OIDC_SCOPES',
    groupsClaim: 'PORTICO_OIDC_GROUPS_CLAIM', serverAdminGroups: 'PORTICO_OIDC_SERVER_ADMIN_GROUPS', redirectUri: 'PORTICO_OIDC_REDIRECT_URI',
  }[field] ?? 'PORTICO_OIDC_ISSUER';
  throw invalid(variable, issue.message);
}

/** `<publicUrl>` of the callback: PORTICO_PUBLIC_URL, else (development only) `http://localhost:<port>`. */
function publicUrlOf(config: PorticoConfig, env: Record<string, string | undefined>): string | undefined {
  const raw = env.PORTICO_PUBLIC_URL;
  if (raw) {
    const parsed = httpUrl.safeParse(raw);
    if (!parsed.success) throw invalid('PORTICO_PUBLIC_URL', parsed.error.issues[0].message);
    return raw.replace(/\/+$/, '');
  }
  if (config.profile === 'development') return `http://localhost:${config.server.port}`;
  return undefined;
}

function resolve(entry: ProviderEntry, publicUrl: string | undefined, setting: string): OidcProviderSettings {
  const scopes = entry.scopes ?? DEFAULT_SCOPES;
  let redirectUri = entry.redirectUri;
  if (!redirectUri) {
    if (!publicUrl) throw invalid('PORTICO_PUBLIC_URL', `is required for the OIDC callback of provider "${entry.name}" (or set its redirectUri)`);
    redirectUri = `${publicUrl}${CALLBACK_PATH}`;
  }
  const clientSecret: ClientSecretSource = entry.clientSecret
    ? { from: 'value', value: entry.clientSecret }
    : entry.clientSecretFile
      ? { from: 'file', path: entry.clientSecretFile }
      : { from: 'secret', secret: OIDC_SECRET, key: clientSecretKey(entry.name) };
  return {
    name: entry.name,
    displayName: entry.displayName ?? entry.name,
    issuer: entry.issuer,
    clientId: entry.clientId,
    clientSecret,
    tokenEndpointAuthMethod: entry.tokenEndpointAuthMethod,
    scopes: scopes.includes('openid') ? scopes : ['openid', ...scopes],
    groupsClaim: entry.groupsClaim ?? DEFAULT_GROUPS_CLAIM,
    serverAdminGroups: entry.serverAdminGroups ?? [],
    redirectUri,
    setting,
  };
}

/**
 * The identity providers of this deployment: those of the file named by `config.oidcConfig`
 * (`PORTICO_OIDC_CONFIG`, YAML or JSON: a list of providers or `{providers: [...]}`) plus the one described by
 * the `PORTICO_OIDC_*` variables. Invalid settings throw naming the variable, so start-up stops.
 */
export function loadOidcSettings(deps: { config: PorticoConfig; env?: Record<string, string | undefined> }): OidcProviderSettings[] {
  const { config } = deps;
  const env = deps.env ?? {};
  const fromFile = config.oidcConfig ? readConfigFile(config.oidcConfig) : [];
  const entries = [...fromFile, ...[envEntry(env)].filter((e) => e !== undefined)];
  if (entries.length === 0) return [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.name)) throw invalid(config.oidcConfig ? 'PORTICO_OIDC_CONFIG' : 'PORTICO_OIDC_NAME', `provider "${entry.name}" is defined twice`);
    seen.add(entry.name);
  }
  const publicUrl = publicUrlOf(config, env);
  return entries.map((entry, i) => resolve(entry, publicUrl, i < fromFile.length ? 'PORTICO_OIDC_CONFIG' : 'PORTICO_OIDC_ISSUER'));
}

/** The Authorizer's `serverAdmins` entries the providers' `serverAdminGroups` stand for. */
export const oidcServerAdmins = (providers: readonly OidcProviderSettings[]): string[] => [
  ...new Set(providers.flatMap((p) => p.serverAdminGroups.map(rbacSubject.group))),
];
