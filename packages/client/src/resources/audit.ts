import type { AuditConfig, AuditConfigUpdate, AuditEvent, AuditEventList, AuditExportQuery, AuditFilterQuery, AuditListQuery, AuditStats, AuditVerify } from '@portico/api/enterprise';
import { download, type Download } from '../download.js';
import type { CallOptions, ClientOptions } from '../options.js';
import type { Transport } from '../transport.js';

export type AuditListInput = Partial<AuditListQuery>;
export type AuditExportInput = AuditFilterQuery & { format?: AuditExportQuery['format'] };

/** An audit export as it streams in. */
export type AuditDownload = Download;

/** §12.2 audit trail (Enterprise; resource `audit`, Server Admin by default). */
export interface AuditApi {
  list(query?: AuditListInput, opts?: CallOptions): Promise<AuditEventList>;
  /** Every event matching `filter`, newest first, page after page by cursor. */
  all(filter?: AuditFilterQuery, opts?: CallOptions): AsyncIterable<AuditEvent>;
  get(id: string, opts?: CallOptions): Promise<AuditEvent>;
  /**
   * Erases the details of one event (Server Admin), e.g. a value that should never have been recorded: the event
   * keeps its place in the hash chain (`verify` still passes), answers with `details: {}` and `erased: {at, by,
   * reason}`, and the erasure is itself an audit event. 409 when already erased.
   */
  erase(id: string, reason: string, opts?: CallOptions): Promise<AuditEvent>;
  /** A streamed export of any size; nothing is buffered by the client. */
  export(query?: AuditExportInput, opts?: Omit<CallOptions, 'timeoutMs'>): Promise<AuditDownload>;
  stats(opts?: CallOptions): Promise<AuditStats>;
  getConfig(opts?: CallOptions): Promise<AuditConfig>;
  /** Send back the object `getConfig` answered, changed; without `maxStreamLength` the stored one stays. */
  updateConfig(config: AuditConfigUpdate, opts?: CallOptions): Promise<AuditConfig>;
  verify(opts?: CallOptions): Promise<AuditVerify>;
}

export function auditApi(call: Transport, options: ClientOptions): AuditApi {
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
    erase: (id, reason, opts) => call('eraseAuditEvent', { params: { id }, body: { reason } }, opts),
    export: (query = {}, opts = {}) => download(options, '/api/v1/audit/events/export', query, opts, 'audit-export'),
    stats: (opts) => call('auditStats', {}, opts),
    getConfig: (opts) => call('getAuditConfig', {}, opts),
    updateConfig: (config, opts) => call('updateAuditConfig', { body: config }, opts),
    verify: (opts) => call('verifyAudit', {}, opts),
  };
  return api;
}
