import { z } from 'zod';
import { PorticoError } from './errors.js';
import { parseAllowedHosts } from './repositories/host-guard.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

/** `host:port`, `:port` or `port`. */
const address = z
  .string()
  .regex(/^([A-Za-z0-9.-]*|\[[0-9a-fA-F:]+\])?:?\d{1,5}$/, 'must be host:port or :port')
  .transform((v) => {
    const i = v.lastIndexOf(':');
    const host = i >= 0 ? v.slice(0, i).replace(/^\[|\]$/g, '') : '';
    const port = Number(i >= 0 ? v.slice(i + 1) : v);
    return { host: host || '0.0.0.0', port };
  })
  .refine((a) => a.port >= 0 && a.port <= 65535, 'port must be 0-65535');

const positiveInt = z.coerce.number().int().min(1);

const checkAllowedHosts = (entries: string[], ctx: z.RefinementCtx) => {
  try {
    parseAllowedHosts(entries);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^PORTICO_GIT_ALLOWED_HOSTS: /, '') });
  }
};

/**
 * Environment variables of contract §10 and Portico's own. Names are the variable names so an error can
 * name the variable. Defaults depend on the profile and are applied in `loadConfig`.
 */
const EnvSchema = z.object({
  PORTICO_PROFILE: z.enum(['production', 'development']).default('production'),
  SERVER_ADDRESS: address.prefault(':8080'),
  METRICS_ADDRESS: z.union([z.literal('off'), address]).optional(),
  REDIS_ADDRESS: z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^redis(s)?:\/\/\S+$/, 'must be host:port or a redis:// URL').optional(),
  DATABASE_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  KUBERNETES_IN_CLUSTER: bool.default(false),
  SWAGGER_UI_ENABLED: bool.optional(),
  PORTICO_CLUSTER: z.enum(['kubernetes', 'embedded']).optional(),
  PORTICO_KV: z.enum(['memory', 'redis']).optional(),
  PORTICO_DATA_DIR: z.string().min(1).default('./.portico'),
  PORTICO_MANIFESTS: list.optional(),
  PORTICO_NAMESPACE: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/).optional(),
  PORTICO_REDIS_PREFIX: z.string().max(64).default('portico:'),
  ADMIN_PASSWORD: z.string().min(1).optional(),
  SERVER_ADMINS: list.default([]),
  PORTICO_TOKEN_TTL_SECONDS: positiveInt.default(3600),
  PORTICO_ISSUER: z.string().min(1).default('portico'),
  PORTICO_COOKIE_SECURE: bool.optional(),
  PORTICO_TRUSTED_PROXIES: list.default([]),
  PORTICO_ALLOWED_REDIRECT_ORIGINS: list.default([]),
  PORTICO_OIDC_CONFIG: z.string().optional(),
  PORTICO_RATE_LIMITS: z.string().optional(),
  PORTICO_KRO_STEP_MS: z.coerce.number().int().min(0).max(60_000).optional(),
  PORTICO_GITOPS_REPO: z.string().optional(),
  // §13: host names or CIDRs a repository may be at although private, loopback or link-local (tests list loopback).
  PORTICO_GIT_ALLOWED_HOSTS: list.superRefine(checkAllowedHosts).default([]),
  PORTICO_GIT_TIMEOUT_MS: positiveInt.max(600_000).default(30_000),
  PORTICO_GITOPS_DRIFT_INTERVAL_MS: positiveInt.default(60_000),
  // §11.5: shown by consoles; printable characters only (no control or format characters), at most 63.
  PORTICO_ORGANIZATION: z.string().regex(/^[^\p{C}\p{Zl}\p{Zp}]{1,63}$/u, 'must be 1 to 63 printable characters').default('default'),
  PORTICO_WS_MAX_BUFFER_BYTES: positiveInt.default(1024 * 1024),
  PORTICO_WS_HEARTBEAT_MS: positiveInt.default(30_000),
  PORTICO_WS_MAX_SOCKETS_PER_USER: positiveInt.default(20),
  PORTICO_ALLOWED_ORIGINS: list.default([]),
  PORTICO_HEADERS_TIMEOUT_MS: positiveInt.default(10_000),
  PORTICO_REQUEST_TIMEOUT_MS: positiveInt.default(30_000),
  PORTICO_MAX_CONNECTIONS_PER_IP: positiveInt.default(256),
  PORTICO_SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
});

export type Env = z.infer<typeof EnvSchema>;

export interface PorticoConfig {
  profile: 'production' | 'development';
  server: { host: string; port: number };
  /** Where `/metrics` is served, apart from the API port; undefined when off. */
  metrics?: { host: string; port: number };
  cluster: 'kubernetes' | 'embedded';
  kv: 'memory' | 'redis';
  redis: { address: string; prefix: string };
  databaseUrl?: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Unset: readable lines in development at a terminal, JSON otherwise. */
  logFormat?: 'json' | 'pretty';
  kubernetes: { inCluster: boolean; namespace: string };
  swaggerUi: boolean;
  dataDir: string;
  manifests: string[];
  adminPassword?: string;
  serverAdmins: string[];
  tokenTtlSeconds: number;
  issuer: string;
  cookieSecure: boolean;
  trustedProxies: string[];
  allowedRedirectOrigins: string[];
  oidcConfig?: string;
  rateLimits?: string;
  kroStepMs: number;
  gitopsRepo?: string;
  /** §13: outbound Git: hosts allowed despite a private address, the bound on each git command, the drift check's period. */
  git: { allowedHosts: string[]; timeoutMs: number; driftIntervalMs: number };
  /** The organization consoles show (`GET /settings`). */
  organization: string;
  ws: {
    maxBufferBytes: number;
    heartbeatMs: number;
    /** Open sockets one user may hold on one replica. */
    maxSocketsPerUser: number;
    /** Browser origins allowed to open /ws besides the server's own (`scheme://host[:port]`). */
    allowedOrigins: string[];
  };
  /** Slow-client protection of the HTTP listener. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnectionsPerIp: number };
  shutdownTimeoutMs: number;
}

/** Reads and validates configuration; a bad value throws naming the variable (start-up stops). */
export function loadConfig(env: Record<string, string | undefined> = process.env): PorticoConfig {
  const relevant = Object.fromEntries(Object.keys(EnvSchema.shape).filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
  const parsed = EnvSchema.safeParse(relevant);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue.path[0] ?? 'environment');
    throw new PorticoError('BAD_REQUEST', `invalid configuration: ${variable}: ${issue.message}`, { variable });
  }
  const e = parsed.data;
  const dev = e.PORTICO_PROFILE === 'development';
  return {
    profile: e.PORTICO_PROFILE,
    server: e.SERVER_ADDRESS,
    metrics: e.METRICS_ADDRESS === 'off' ? undefined : (e.METRICS_ADDRESS ?? (dev ? undefined : { host: '0.0.0.0', port: 9090 })),
    cluster: e.PORTICO_CLUSTER ?? (dev ? 'embedded' : 'kubernetes'),
    kv: e.PORTICO_KV ?? (dev && !e.REDIS_ADDRESS ? 'memory' : 'redis'),
    redis: { address: e.REDIS_ADDRESS ?? 'localhost:6379', prefix: e.PORTICO_REDIS_PREFIX },
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    kubernetes: { inCluster: e.KUBERNETES_IN_CLUSTER, namespace: e.PORTICO_NAMESPACE ?? 'portico' },
    swaggerUi: e.SWAGGER_UI_ENABLED ?? dev,
    dataDir: e.PORTICO_DATA_DIR,
    manifests: e.PORTICO_MANIFESTS ?? (dev ? ['examples/catalog'] : []),
    adminPassword: e.ADMIN_PASSWORD,
    serverAdmins: e.SERVER_ADMINS,
    tokenTtlSeconds: e.PORTICO_TOKEN_TTL_SECONDS,
    issuer: e.PORTICO_ISSUER,
    cookieSecure: e.PORTICO_COOKIE_SECURE ?? !dev,
    trustedProxies: e.PORTICO_TRUSTED_PROXIES,
    allowedRedirectOrigins: e.PORTICO_ALLOWED_REDIRECT_ORIGINS,
    oidcConfig: e.PORTICO_OIDC_CONFIG,
    rateLimits: e.PORTICO_RATE_LIMITS,
    kroStepMs: e.PORTICO_KRO_STEP_MS ?? 300,
    gitopsRepo: e.PORTICO_GITOPS_REPO,
    git: { allowedHosts: e.PORTICO_GIT_ALLOWED_HOSTS, timeoutMs: e.PORTICO_GIT_TIMEOUT_MS, driftIntervalMs: e.PORTICO_GITOPS_DRIFT_INTERVAL_MS },
    organization: e.PORTICO_ORGANIZATION,
    ws: {
      maxBufferBytes: e.PORTICO_WS_MAX_BUFFER_BYTES,
      heartbeatMs: e.PORTICO_WS_HEARTBEAT_MS,
      maxSocketsPerUser: e.PORTICO_WS_MAX_SOCKETS_PER_USER,
      allowedOrigins: e.PORTICO_ALLOWED_ORIGINS,
    },
    http: {
      headersTimeoutMs: e.PORTICO_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.PORTICO_REQUEST_TIMEOUT_MS,
      maxConnectionsPerIp: e.PORTICO_MAX_CONNECTIONS_PER_IP,
    },
    shutdownTimeoutMs: e.PORTICO_SHUTDOWN_TIMEOUT_MS,
  };
}
