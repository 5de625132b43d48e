export interface NodeFetchOptions {
  /** A proxy URL, or `'env'` to follow HTTP_PROXY / HTTPS_PROXY / NO_PROXY. */
  proxy?: string;
  /** Extra trusted CA certificates (PEM). */
  ca?: string | string[];
  /** false accepts any server certificate: for development clusters only. */
  rejectUnauthorized?: boolean;
}

/**
 * Node only: a `fetch` bound to an undici dispatcher for what Node's global fetch cannot do on its own
 * (proxies from the environment, a private CA). undici's own `fetch` is used with it because the global fetch
 * may embed a different undici version. The import is dynamic, so browser bundles do not include undici.
 */
export async function createNodeFetch(options: NodeFetchOptions = {}): Promise<typeof fetch> {
  const undici = await import('undici');
  const tls = { ca: options.ca, rejectUnauthorized: options.rejectUnauthorized };
  const dispatcher =
    options.proxy === 'env'
      ? new undici.EnvHttpProxyAgent({ connect: tls, requestTls: tls })
      : options.proxy
        ? new undici.ProxyAgent({ uri: options.proxy, requestTls: tls })
        : new undici.Agent({ connect: tls });
  return ((input: string | URL, init?: RequestInit) =>
    undici.fetch(input, { ...(init as object), dispatcher } as Parameters<typeof undici.fetch>[1])) as unknown as typeof fetch;
}
