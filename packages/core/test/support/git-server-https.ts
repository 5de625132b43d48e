import { execFile, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { GitUser } from './git-server-files.js';

const exec = promisify(execFile);

/** A CA and a server certificate for localhost, 127.0.0.1 and ::1, made with the openssl CLI. */
export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
}

export async function makePki(dir: string): Promise<TestPki> {
  const at = (name: string) => path.join(dir, name);
  await exec('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', at('ca.key'), '-out', at('ca.pem'),
    '-days', '2', '-subj', '/CN=Portico test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await exec('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost']);
  await writeFile(at('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  await exec('openssl', ['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.pem'), '-days', '2', '-extfile', at('server.ext')]);
  const [caCert, serverCert, serverKey] = await Promise.all(['ca.pem', 'server.pem', 'server.key'].map((f) => readFile(at(f), 'utf8')));
  return { caCert: caCert!, serverCert: serverCert!, serverKey: serverKey! };
}

export interface HttpsGitOptions {
  pki: TestPki;
  user: GitUser;
  /** The directory of bare repositories (`/<name>.git` is `<root>/<name>.git`). */
  root: string;
  /** Basic-auth users and passwords. */
  users: Record<string, string>;
  /** Accepted `Authorization: Bearer` tokens. */
  tokens: readonly string[];
}

/**
 * `git http-backend` behind node:https: Basic or Bearer authentication (else 401 with a Basic challenge), the CGI
 * run as the serving user. `/redirect/<host>/<port>/<path>` answers 302 to `https://<host>:<port>/<path>`, so tests
 * can send git somewhere else. `stop()` closes the port; `start()` opens it again.
 */
export interface HttpsGitServer {
  readonly port: number;
  url(repo: string, host?: string): string;
  /** Requests seen (method and path, ` [auth]` when they carried credentials), newest last. */
  readonly requests: string[];
  /** Holds every answer back this long (0: none), so a test can look at the client while it waits. */
  delayMs: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const authorized = (req: IncomingMessage, opts: HttpsGitOptions): string | undefined => {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Bearer ')) return opts.tokens.includes(header.slice(7)) ? 'token-user' : undefined;
  if (header.startsWith('Basic ')) {
    const [user, ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    const password = rest.join(':');
    return user && opts.users[user] !== undefined && opts.users[user] === password ? user : undefined;
  }
  return undefined;
};

function runBackend(req: IncomingMessage, res: ServerResponse, opts: HttpsGitOptions, remoteUser: string) {
  const url = new URL(req.url ?? '/', 'https://git.test');
  const asOther = userInfo().uid === 0 && opts.user.uid !== 0;
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_PROJECT_ROOT: opts.root, GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: req.method ?? 'GET', CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_USER: remoteUser, REMOTE_ADDR: req.socket.remoteAddress ?? '',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    },
    ...(asOther ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
  });
  req.pipe(child.stdin);
  child.stdin.on('error', () => {});
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const i = line.indexOf(':');
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => res.end());
  child.on('error', () => res.destroy());
}

export async function startHttpsGitServer(opts: HttpsGitOptions): Promise<HttpsGitServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}${req.headers.authorization ? ' [auth]' : ''}`);
    if (control.delayMs > 0) {
      const held = control.delayMs;
      control.delayMs = 0;
      setTimeout(() => handler(req, res), held);
      return;
    }
    const redirect = /^\/redirect\/([^/]+)\/(\d+)(\/.*)$/.exec(req.url ?? '');
    if (redirect) {
      res.writeHead(302, { location: `https://${redirect[1]}:${redirect[2]}${redirect[3]}` }).end();
      return;
    }
    const user = authorized(req, opts);
    if (!user) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test git"', 'content-type': 'text/plain' }).end('authentication required\n');
      return;
    }
    runBackend(req, res, opts, user);
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer({ cert: opts.pki.serverCert, key: opts.pki.serverKey }, handler);
      server.on('connection', (s: Socket) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  const control: HttpsGitServer = {
    delayMs: 0,
    get port() {
      return port;
    },
    url: (repo, host = 'localhost') => `https://${host}:${port}/${repo}`,
    requests,
    start: listen,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server) return resolve();
        server.close(() => resolve());
        server = undefined;
      }),
  };
  return control;
}
