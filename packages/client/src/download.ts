import { PorticoApiError, errorFromResponse } from './errors.js';
import type { CallOptions, ClientOptions } from './options.js';
import { buildQuery, trimBase, type QueryValue } from './paths.js';

export interface Download {
  /** From `Content-Disposition`. */
  filename: string;
  contentType: string;
  /** The body as it arrives; read it to the end or cancel it. */
  body: ReadableStream<Uint8Array>;
}

const filenameOf = (disposition: string | null, fallback: string) => /filename="?([^";]+)"?/.exec(disposition ?? '')?.[1] ?? fallback;

/**
 * A streamed GET (an export of any size): the transport parses JSON bodies, so this is one plain request
 * with the same auth and error envelope, and nothing of the body is buffered.
 */
export async function download(options: ClientOptions, path: string, query: Record<string, QueryValue>, opts: Omit<CallOptions, 'timeoutMs'>, fallbackName: string): Promise<Download> {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const token = (await options.getToken?.()) ?? options.token;
  const headers: Record<string, string> = { ...options.headers, ...opts.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  const url = `${trimBase(options.baseUrl)}${path}${buildQuery(query)}`;
  let res: Response;
  try {
    const init: RequestInit & { dispatcher?: unknown } = { headers, signal: opts.signal, dispatcher: options.dispatcher };
    res = await fetchImpl(url, init);
  } catch (error) {
    throw new PorticoApiError({ status: 0, code: 'NETWORK_ERROR', message: `GET ${url} failed: ${(error as Error).message}`, details: {} });
  }
  if (!res.ok || !res.body) throw errorFromResponse(res, await res.text());
  return { filename: filenameOf(res.headers.get('content-disposition'), fallbackName), contentType: res.headers.get('content-type') ?? '', body: res.body };
}
