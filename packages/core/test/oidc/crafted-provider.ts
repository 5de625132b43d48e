import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

export interface TokenRequest {
  form: URLSearchParams;
  authorization?: string;
}

export interface CraftedProvider {
  issuer: string;
  /** Extra or replaced fields of the discovery document. */
  discovery: Record<string, unknown>;
  /** What the token endpoint answers; by default `{id_token: nextIdToken}`. */
  tokenResponse?: (req: TokenRequest) => { status: number; body: unknown };
  /** The ID token the token endpoint hands out next. */
  nextIdToken?: string;
  /** What the UserInfo endpoint answers for any bearer token. */
  userinfo?: Record<string, unknown>;
  tokenRequests: TokenRequest[];
  /** Requests served, `METHOD path`. */
  requests: string[];
  /** Down: every request is answered 503. */
  down: boolean;
  /** An ID token signed with the provider's published key unless `key` says otherwise. */
  mint(claims: JWTPayload, opts?: { key?: CryptoKey; kid?: string; alg?: string; secret?: Uint8Array }): Promise<string>;
  /** A key pair the provider does not publish. */
  foreignKey(): Promise<CryptoKey>;
  close(): Promise<void>;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(text));
  });

/**
 * An OpenID provider on 127.0.0.1 whose every answer the test controls: discovery, JWKS with one RS256 key,
 * a token endpoint returning whatever ID token the test minted, UserInfo. For the cases a real provider
 * would never produce (wrong nonce, foreign key, expired token).
 */
export async function startCraftedProvider(): Promise<CraftedProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'published', alg: 'RS256', use: 'sig' };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const crafted: CraftedProvider = {
    issuer,
    discovery: {},
    tokenRequests: [],
    requests: [],
    down: false,
    async mint(claims, opts = {}) {
      const alg = opts.alg ?? 'RS256';
      const jwt = new SignJWT(claims).setProtectedHeader({ alg, kid: opts.kid ?? 'published', typ: 'JWT' });
      return jwt.sign(opts.secret ?? opts.key ?? privateKey);
    },
    async foreignKey() {
      return (await generateKeyPair('RS256')).privateKey;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  server.on('request', async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    crafted.requests.push(`${req.method} ${path}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (crafted.down) return send(503, { error: 'temporarily_unavailable' });
    if (path === '/.well-known/openid-configuration') {
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        ...crafted.discovery,
      });
    }
    if (path === '/jwks') return send(200, { keys: [jwk] });
    if (path === '/token' && req.method === 'POST') {
      const request = { form: new URLSearchParams(await readBody(req)), authorization: req.headers.authorization };
      crafted.tokenRequests.push(request);
      if (crafted.tokenResponse) {
        const answer = crafted.tokenResponse(request);
        return send(answer.status, answer.body);
      }
      return send(200, { access_token: 'access-token', token_type: 'Bearer', expires_in: 60, id_token: crafted.nextIdToken });
    }
    if (path === '/userinfo') return crafted.userinfo ? send(200, crafted.userinfo) : send(401, { error: 'invalid_token' });
    send(404, { error: 'not_found' });
  });
  return crafted;
}
