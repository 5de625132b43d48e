/** Outbound calls to identity providers: bounded in time and size, no redirects followed. */
export const IDP_TIMEOUT_MS = 5000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

export class IdpHttpError extends Error {
  constructor(
    message: string,
    /** HTTP status, 0 when no answer came. */
    readonly status: number,
    /** The provider's OAuth `error` code, when it sent one. */
    readonly oauthError?: string,
  ) {
    super(message);
    this.name = 'IdpHttpError';
  }
}

async function readLimited(res: Response): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_RESPONSE_BYTES) throw new IdpHttpError('response too large', res.status);
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new IdpHttpError('response too large', res.status);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON object from the provider; any network failure, non-2xx answer or non-object body throws IdpHttpError. */
export async function fetchJson(url: string, init: RequestInit = {}, timeoutMs = IDP_TIMEOUT_MS): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new IdpHttpError(`request failed: ${(e as Error).name}`, 0);
  }
  let text: string;
  try {
    text = await readLimited(res);
  } catch (e) {
    if (e instanceof IdpHttpError) throw e;
    throw new IdpHttpError('response could not be read', res.status);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const object = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (res.status < 200 || res.status >= 300) {
    const oauthError = typeof object?.error === 'string' ? object.error : undefined;
    throw new IdpHttpError(`HTTP ${res.status}`, res.status, oauthError);
  }
  if (!object) throw new IdpHttpError('response is not a JSON object', res.status);
  return object;
}
