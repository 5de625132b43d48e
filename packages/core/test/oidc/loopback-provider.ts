import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestUser {
  email: string;
  name: string;
  groups: string[];
}

export interface LoopbackProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Users by account id (what the login form takes); change them between sign-ins. */
  users: Map<string, TestUser>;
  /** Requests the provider served, `METHOD path` (no query). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1: one confidential client for Portico's callback with
 * the code flow and PKCE required, users whose claims carry `groups`, and the development interactions (plain
 * HTML login and consent forms). It keeps ID tokens conformant (profile claims only through UserInfo), as
 * many real providers do.
 */
export async function startLoopbackProvider(opts: { redirectUris: string[]; users?: Record<string, TestUser> }): Promise<LoopbackProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'portico';
  const clientSecret = 'loopback-client-secret-0123456789abcdef';
  const users = new Map(Object.entries(opts.users ?? {}));
  const requests: string[] = [];

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
    async findAccount(_ctx: unknown, id: string) {
      const user = users.get(id);
      if (!user) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email: user.email, name: user.name, groups: user.groups }) };
    },
    cookies: { keys: ['loopback-cookie-key'] },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: true } },
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    provider.callback()(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    users,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser's cookie jar, enough for one sign-in: name → value per host, honouring Path and deletions. */
export function cookieJar() {
  const cookies: Array<{ host: string; name: string; value: string; path: string }> = [];
  return {
    store(url: string, res: Response) {
      const { host } = new URL(url);
      for (const header of res.headers.getSetCookie()) {
        const [pair, ...attrs] = header.split(';').map((s) => s.trim());
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq);
        const value = pair.slice(eq + 1);
        const attr = (n: string) => attrs.find((a) => a.toLowerCase().startsWith(`${n}=`))?.slice(n.length + 1);
        const path = attr('path') ?? '/';
        const expired = attr('max-age') === '0' || (attr('expires') !== undefined && Date.parse(attr('expires')!) < Date.now());
        const i = cookies.findIndex((c) => c.host === host && c.name === name && c.path === path);
        if (i >= 0) cookies.splice(i, 1);
        if (!expired && value !== '') cookies.push({ host, name, value, path });
      }
    },
    header(url: string): string {
      const { host, pathname } = new URL(url);
      return cookies
        .filter((c) => c.host === host && (pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
        .map((c) => `${c.name}=${c.value}`)
        .join('; ');
    },
  };
}

const attribute = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];
const unescapeHtml = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/**
 * A browser through the provider's pages: follows redirects itself (keeping cookies), fills the login form with
 * `login` and submits the consent form, and stops at the first redirect to a URL starting with `stopAt`.
 * Returns that URL.
 */
export async function signInAtProvider(startUrl: string, login: string, stopAt: string): Promise<string> {
  const jar = cookieJar();
  let url = startUrl;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) } });
    jar.store(url, res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).href;
      if (next.startsWith(stopAt)) return next;
      url = next;
      init = {};
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*>/.exec(html)?.[0];
    if (res.status !== 200 || !form) throw new Error(`unexpected answer from the provider: ${res.status} ${html.slice(0, 300)}`);
    const fields = new URLSearchParams();
    for (const input of html.match(/<input[^>]*>/g) ?? []) {
      const name = attribute(input, 'name');
      if (name) fields.set(name, unescapeHtml(attribute(input, 'value') ?? ''));
    }
    if (fields.get('prompt') === 'login') {
      fields.set('login', login);
      fields.set('password', 'any-password');
    }
    url = new URL(unescapeHtml(attribute(form, 'action') ?? url), url).href;
    init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() };
  }
  throw new Error('the sign-in did not come back');
}
