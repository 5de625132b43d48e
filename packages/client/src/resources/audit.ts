import type { AuditConfig, AuditEvent, AuditEventList, AuditExportQuery, AuditFilterQuery, AuditListQuery, AuditStats, AuditVerify } from '@portico/api/enterprise';
import { PorticoApiError, errorFromResponse } from '../errors.js';
import type { CallOptions, ClientOptions } from '../options.js';
import { buildQuery, trimBase } from '../paths.js';
import type { Transport } from '../transport.js';

export type AuditListInput = Partial<AuditListQuery>;
export type AuditExportInput = AuditFilterQuery & { format?: AuditExportQuery['format'] };

export interface AuditDownload {
  /** From `Content-Disposition`. */
  filename: string;
  contentType: string;
  /** The export as it arrives; read it to the end or cancel it. */
  body: ReadableStream<Uint8Array>;
}

/** §12.2 audit trail (Enterprise; resource `audit`, Server Admin by default). */
export interface AuditApi {
  list(query?: AuditListInput, opts?: CallOptions): Promise<AuditEventList>;
  /** Every event matching `filter`, newest first, page after page by cursor. */
  all(filter?: AuditFilterQuery, opts?: CallOptions): AsyncIterable<AuditEvent>;
  get(id: string, opts?: CallOptions): Promise<AuditEvent>;
  /** A streamed export of any size; nothing is buffered by the client. */
  export(query?: AuditExportInput, opts?: Omit<CallOptions, 'timeoutMs'>): Promise<AuditDownload>;
  stats(opts?: CallOptions): Promise<AuditStats>;
  getConfig(opts?: CallOptions): Promise<AuditConfig>;
  updateConfig(config: AuditConfig, opts?: CallOptions): Promise<AuditConfig>;
  verify(opts?: CallOptions): Promise<AuditVerify>;
}

const filenameOf = (disposition: string | null) => /filename="?([^";]+)"?/.exec(disposition ?? '')?.[1] ?? 'audit-export';

export function auditApi(call: Transport, options: ClientOptions): AuditApi {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const api: AuditApi = {
    list: (query = {}, opts) => call('listAuditEvents', { query }, opts),
    async *all(filter = {}, opts) {
      let after: string | undefined;
      do {
        const page = await api.list({ ...filter, pageSize: 200, after }, opts);
        yield* page.events;
        after = page.nextCursor;
      } while (after);
    },
    get: (id, opts) => call('getAuditEvent', { params: { id } }, opts),
    // The transport parses JSON bodies; an export is a stream, so it is one plain request with the same auth.
    async export(query = {}, opts = {}) {
      const token = (await options.getToken?.()) ?? options.token;
      const headers: Record<string, string> = { ...options.headers, ...opts.headers };
      if (token) headers.authorization = `Bearer ${token}`;
      const url = `${trimBase(options.baseUrl)}/api/v1/audit/events/export${buildQuery(query)}`;
      let res: Response;
      try {
        const init: RequestInit & { dispatcher?: unknown } = { headers, signal: opts.signal, dispatcher: options.dispatcher };
        res = await fetchImpl(url, init);
      } catch (error) {
        throw new PorticoApiError({ status: 0, code: 'NETWORK_ERROR', message: `GET ${url} failed: ${(error as Error).message}`, details: {} });
      }
      if (!res.ok || !res.body) throw errorFromResponse(res, await res.text());
      return { filename: filenameOf(res.headers.get('content-disposition')), contentType: res.headers.get('content-type') ?? '', body: res.body };
    },
    stats: (opts) => call('auditStats', {}, opts),
    getConfig: (opts) => call('getAuditConfig', {}, opts),
    updateConfig: (config, opts) => call('updateAuditConfig', { body: config }, opts),
    verify: (opts) => call('verifyAudit', {}, opts),
  };
  return api;
}
