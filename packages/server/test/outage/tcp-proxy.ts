import net from 'node:net';

export interface TcpProxy {
  /** `127.0.0.1:<port>` */
  address(): string;
  port(): number;
  /** Drops every connection and stops listening: clients see resets, then refused connections. */
  cut(): Promise<void>;
  /** Listens again on the same port (nothing to do when it is listening). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of a real service (Redis here) that a test can cut and restore, to stage an
 * outage without touching the service itself.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let proxyPort = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(proxyPort, '127.0.0.1', () => {
        proxyPort = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      const s = server;
      server = undefined;
      s.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  await listen();
  return { address: () => `127.0.0.1:${proxyPort}`, port: () => proxyPort, cut, restore: () => (server ? Promise.resolve() : listen()), close: cut };
}
