import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { CliError, ExitCode } from './exit-codes.js';

export interface ContextEntry {
  name: string;
  server: string;
  token: string;
  user: string;
  /** RFC 3339; the CLI refuses an expired token before sending it. */
  expiresAt: string;
}

export interface CliConfig {
  currentContext: string;
  contexts: ContextEntry[];
}

/** `$PORTICO_CONFIG`, else `~/.config/portico/config.yaml`. */
export const configPath = (env: NodeJS.ProcessEnv = process.env) =>
  env.PORTICO_CONFIG || join(env.HOME || homedir(), '.config', 'portico', 'config.yaml');

const emptyConfig = (): CliConfig => ({ currentContext: '', contexts: [] });

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export async function loadConfig(path: string): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyConfig();
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`, ExitCode.failure);
  }
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (e) {
    throw new CliError(`${path} is not valid YAML: ${(e as Error).message}`, ExitCode.failure);
  }
  if (raw === null || raw === undefined) return emptyConfig();
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new CliError(`${path} must hold a mapping`, ExitCode.failure);
  const doc = raw as { currentContext?: unknown; contexts?: unknown };
  const contexts = Array.isArray(doc.contexts) ? doc.contexts : [];
  return {
    currentContext: str(doc.currentContext),
    contexts: contexts
      .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object')
      .map((c) => ({ name: str(c.name), server: str(c.server), token: str(c.token), user: str(c.user), expiresAt: str(c.expiresAt) }))
      .filter((c) => c.name !== ''),
  };
}

/**
 * Writes the file with mode 0600 in a 0700 directory: it holds bearer tokens. Written to a temporary file and
 * renamed, so a crash never leaves half a config, and chmod'ed so an older, looser file is tightened too.
 */
export async function saveConfig(path: string, config: CliConfig): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, YAML.stringify(config), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

export const findContext = (config: CliConfig, name: string) => config.contexts.find((c) => c.name === name);

export const currentContext = (config: CliConfig) => findContext(config, config.currentContext);

/** Replaces the context with the same name where it stands (so `context list` keeps its order), or adds it. */
export function upsertContext(config: CliConfig, entry: ContextEntry): CliConfig {
  const exists = config.contexts.some((c) => c.name === entry.name);
  const contexts = exists ? config.contexts.map((c) => (c.name === entry.name ? entry : c)) : [...config.contexts, entry];
  return { ...config, contexts };
}

/** Removes the context named `name`; the current context is cleared when it was that one. */
export function removeContext(config: CliConfig, name: string): CliConfig {
  return {
    currentContext: config.currentContext === name ? '' : config.currentContext,
    contexts: config.contexts.filter((c) => c.name !== name),
  };
}

export function renameContext(config: CliConfig, from: string, to: string): CliConfig {
  return {
    currentContext: config.currentContext === from ? to : config.currentContext,
    contexts: config.contexts.map((c) => (c.name === from ? { ...c, name: to } : c)),
  };
}

/**
 * Where a login is saved: the context this user already has for this server; else the server's host when no
 * other context holds that name; else `user@host`. A second user signing in to the same server so gets a
 * context of their own instead of replacing the first user's session.
 */
export function contextNameForLogin(config: CliConfig, server: string, user: string): string {
  const own = config.contexts.find((c) => c.server === server && c.user === user);
  if (own) return own.name;
  const host = contextNameFor(server);
  return findContext(config, host) ? `${user}@${host}` : host;
}

/** A context name from a server URL: its host (and port). */
function contextNameFor(server: string): string {
  try {
    return new URL(server).host || server;
  } catch {
    return server;
  }
}

export const isExpired = (entry: Pick<ContextEntry, 'expiresAt'>, now = Date.now()) => {
  if (!entry.expiresAt) return false;
  const t = Date.parse(entry.expiresAt);
  return !Number.isNaN(t) && t <= now;
};
