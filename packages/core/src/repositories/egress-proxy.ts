import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isPorticoError } from '../errors.js';
import type { HostGuard } from './host-guard.js';

/**
 * A CONNECT proxy on loopback that one git run talks HTTPS through (`http.proxy`): every connection git opens,
 * the first and each redirect's, is resolved and checked by the host guard here, and the tunnel goes to the
 * checked address. TLS stays end to end between git and the server (the proxy only relays bytes), so the
 * certificate is still verified against the host name. A per-run password keeps other local processes out.
 */
export interface EgressProxy {
  /** `http://portico:<secret>@127.0.0.1:<port>`: for git's configuration (an environment variable, never an argument). */
  readonly url: string;
  /** The refusals of this run (a redirect to a private address shows up here), for the error message. */
  readonly refusals: readonly Error[];
  close(): Promise<void>;
}

const parseTarget = (target: string): { host: string; port: number } | undefined => {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(target);
  if (!m) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1]!.replace(/^\[|\]$/g, ''), port } : undefined;
};

export async function startEgressProxy(guard: HostGuard, opts: { connectTimeoutMs: number }): Promise<EgressProxy> {
  const secret = randomBytes(18).toString('base64url');
  const expected = `Basic ${Buffer.from(`portico:${secret}`).toString('base64')}`;
  const refusals: Error[] = [];
  const sockets = new Set<Socket | Duplex>();

  const server = createServer((_req, res) => {
    // Plain-HTTP forwarding is not offered: Git over HTTPS only ever asks for a tunnel.
    res.writeHead(405, { connection: 'close' }).end();
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const answer = (status: string) => client.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    if (req.headers['proxy-authorization'] !== expected) return answer('407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="portico"');
    const target = parseTarget(req.url ?? '');
    if (!target) return answer('400 Bad Request');
    guard.resolve(target.host).then(
      (address) => {
        const upstream = connect({ host: address, port: target.port, timeout: opts.connectTimeoutMs });
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.once('connect', () => {
          upstream.setTimeout(0);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('timeout', () => upstream.destroy(new Error('connect timeout')));
        upstream.on('error', () => {
          if (!client.destroyed) answer('502 Bad Gateway');
          upstream.destroy();
        });
        client.on('close', () => upstream.destroy());
      },
      (err: unknown) => {
        refusals.push(err instanceof Error ? err : new Error(String(err)));
        answer(isPorticoError(err) && err.code === 'BAD_REQUEST' ? '403 Forbidden' : '502 Bad Gateway');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://portico:${secret}@127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
