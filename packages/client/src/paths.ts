/** Fills `{param}` placeholders, encoding each segment so a value can never reach another path. */
export function buildPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter "${key}" for ${template}`);
    return encodeURIComponent(value);
  });
}

export type QueryValue = string | number | boolean | readonly string[] | undefined | null;

/** `?a=1&b=x` from an object; undefined, null and empty values are left out, arrays become comma lists. */
export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    const text = Array.isArray(value) ? value.join(',') : String(value);
    if (text !== '') search.set(key, text);
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}

/** Base URL without a trailing slash, so `${base}/api/v1/...` never doubles it. */
export const trimBase = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/** The WebSocket endpoint on the same host: http → ws, https → wss, keeping any path prefix. */
export function wsUrl(baseUrl: string, ticket: string): string {
  const url = new URL(`${trimBase(baseUrl)}/ws`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('ticket', ticket);
  return url.toString();
}
