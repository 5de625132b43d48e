import { createClient, createNodeFetch, type PorticoClient } from '@portico/client';
import type { Command } from 'commander';
import { configPath, currentContext, isExpired, loadConfig, type CliConfig, type ContextEntry } from './config.js';
import { CliError, ExitCode, sessionExpired, usageError } from './exit-codes.js';
import type { Io } from './io.js';

export interface GlobalOptions {
  server?: string;
  token?: string;
}

export interface Session {
  client: PorticoClient;
  server: string;
  /** The context the server and token came from, when they did. */
  context?: ContextEntry;
  config: CliConfig;
  configPath: string;
}

/** What every command gets: the terminal, and a way to reach the server with the right credentials. */
export interface App {
  io: Io;
  /** Set by a command that ends with a non-zero code without an error (can-i "no"). */
  exitCode?: number;
  /** True once a request went out with a token: a 401 then means the session expired. */
  usedToken: boolean;
  /** The token came from --token or PORTICO_TOKEN (a pipeline's, say), not from a login: a 401 is not an expired session. */
  tokenGiven?: boolean;
  session(cmd: Command, opts?: { auth?: boolean; allowExpired?: boolean }): Promise<Session>;
  /** fetch options for clients built outside a session (login). */
  transport(): Promise<{ fetch?: typeof fetch }>;
}

const hasProxy = (env: NodeJS.ProcessEnv) => !!(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);

/** `localhost:8080` → `http://localhost:8080`, `portico.example.com` → `https://…`; no trailing slash. */
export function normalizeServer(server: string): string {
  let url = server.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    const local = /^(localhost|127\.|\[::1\])/.test(url);
    url = `${local ? 'http' : 'https'}://${url}`;
  }
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw usageError(`invalid server URL "${server}"`);
  }
  return url.replace(/\/+$/, '');
}

export function createApp(io: Io): App {
  const transport = async () => (hasProxy(io.env) ? { fetch: await createNodeFetch({ proxy: 'env' }) } : {});
  const app: App = {
    io,
    usedToken: false,
    transport,
    async session(cmd, opts = {}) {
      const auth = opts.auth ?? true;
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const path = configPath(io.env);
      const config = await loadConfig(path);
      const serverOverride = globals.server || io.env.PORTICO_SERVER;
      // With another server named, the current context's token would go to the wrong place: use the context
      // for that server, if there is one.
      const context = serverOverride
        ? config.contexts.find((c) => c.server === normalizeServer(serverOverride))
        : currentContext(config);
      const server = serverOverride ? normalizeServer(serverOverride) : context?.server;
      if (!server) throw usageError('no server: run portico login SERVER, or pass --server / set PORTICO_SERVER');
      const explicitToken = globals.token || io.env.PORTICO_TOKEN;
      const token = explicitToken || context?.token || undefined;
      if (auth && !token) throw new CliError('not logged in, run portico login', ExitCode.auth);
      if (auth && !explicitToken && context && !opts.allowExpired && isExpired(context)) throw sessionExpired();
      if (token) app.usedToken = true;
      app.tokenGiven = !!explicitToken;
      const client = createClient({ baseUrl: server, token, ...(await transport()) });
      return { client, server, context, config, configPath: path };
    },
  };
  return app;
}
