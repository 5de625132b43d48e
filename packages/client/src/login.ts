import type { LoginResponse } from '@portico/api';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createClient } from './client.js';
import { PorticoApiError } from './errors.js';
import type { CallOptions, ClientOptions } from './options.js';

type LoginClientOptions = Omit<ClientOptions, 'baseUrl' | 'token' | 'getToken'>;

/** Signs in with a local account: `{token, expiresAt, user}`. */
export function loginLocal(
  baseUrl: string,
  username: string,
  password: string,
  options: LoginClientOptions & CallOptions = {},
): Promise<LoginResponse> {
  const { signal, timeoutMs, headers, ...clientOptions } = options;
  return createClient({ ...clientOptions, baseUrl }).auth.login({ username, password }, { signal, timeoutMs, headers });
}

export interface SsoLoginOptions extends LoginClientOptions {
  baseUrl: string;
  /** An identity provider name from `auth.providers()`; the server's default when omitted. */
  provider?: string;
  /** Shows the sign-in page to the user: launch a browser, or print the URL. */
  openBrowser: (url: string) => void | Promise<void>;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  waitMs?: number;
  signal?: AbortSignal;
}

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body></html>`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * SSO sign-in for command-line programs (Node only). Listens on 127.0.0.1 at a random port, opens
 * `<baseUrl>/api/v1/auth/oidc/login?provider=…&redirect=http://127.0.0.1:<port>/callback` in the browser,
 * waits for the server to send the browser back with a one-time `code` (or `error`), and exchanges the code.
 */
export async function loginSso(options: SsoLoginOptions): Promise<LoginResponse> {
  const { baseUrl, provider, openBrowser, waitMs = 5 * 60_000, signal, ...clientOptions } = options;
  const client = createClient({ ...clientOptions, baseUrl });
  const http = await import('node:http');

  let settle!: { resolve: (code: string) => void; reject: (e: Error) => void };
  const codeArrived = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const reply = (status: number, html: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close', 'cache-control': 'no-store' });
      res.end(html);
    };
    if (req.method !== 'GET' || url.pathname !== '/callback') return reply(404, page('Not found', 'Nothing here.'));
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error) {
      const description = url.searchParams.get('error_description') ?? '';
      reply(400, page('Sign-in failed', `${escapeHtml(error)} ${escapeHtml(description)}<br>You can close this tab.`));
      return settle.reject(new PorticoApiError({ status: 0, code: 'SSO_FAILED', message: `SSO sign-in failed: ${error}${description ? ` (${description})` : ''}` }));
    }
    if (!code) return reply(400, page('Sign-in failed', 'The callback carried no code.'));
    reply(200, page('Signed in to Portico', 'You can close this tab and return to the terminal.'));
    settle.resolve(code);
  };

  const server: Server = http.createServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const timer = setTimeout(
    () => settle.reject(new PorticoApiError({ status: 0, code: 'TIMEOUT', message: `no SSO callback within ${Math.round(waitMs / 1000)} s` })),
    waitMs,
  );
  const onAbort = () => settle.reject(new PorticoApiError({ status: 0, code: 'ABORTED', message: 'SSO sign-in aborted' }));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted) onAbort();
    const { port } = server.address() as { port: number };
    const redirect = `http://127.0.0.1:${port}/callback`;
    await openBrowser(client.auth.oidcLoginUrl({ provider, redirect }));
    const code = await codeArrived;
    return await client.auth.tokenExchange(code, { signal });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    server.close();
    server.closeAllConnections();
  }
}
