import { badRequest, conflict, forbidden, notFound, PorticoError, unavailable, validationFailed } from '../../errors.js';
import type { KubeResponse } from './transport.js';

/** The `Status` object the API server sends with every error (and in watch `ERROR` events). */
export interface KubeStatus {
  kind?: string;
  status?: string;
  reason?: string;
  code?: number;
  message?: string;
  details?: { name?: string; kind?: string; causes?: { field?: string; message?: string; reason?: string }[] };
}

const isStatus = (v: unknown): v is KubeStatus => typeof v === 'object' && v !== null && (v as KubeStatus).kind === 'Status';

/** The Status of an error answer, or one made up from the HTTP status when the body is not a Status. */
export function statusOf(res: Pick<KubeResponse, 'status' | 'body'>): KubeStatus {
  if (isStatus(res.body)) return res.body;
  const text = typeof res.body === 'string' ? res.body.trim().slice(0, 200) : '';
  return { kind: 'Status', status: 'Failure', code: res.status, message: text || `HTTP ${res.status}` };
}

/** True when the API server itself could not answer properly: Portico should retry, not blame the caller. */
export const isServerSide = (status: number) => status >= 500 || status === 429;

/** Seconds from `Retry-After`, when the server sent one (429 / 503 from API priority and fairness). */
function retryAfterOf(res: KubeResponse): number | undefined {
  const raw = res.headers['retry-after'];
  const seconds = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : undefined;
}

/** `admission webhook "<name>" denied the request: <reason>`: the API server's words for a webhook's refusal. */
const WEBHOOK_DENIAL = /^admission webhook "([^"]*)" denied the request:?\s*([\s\S]*)$/;

/** Whether a 403's message is a validating webhook's refusal (the caller's doing) rather than Portico's RBAC. */
export const isWebhookDenial = (message: string | undefined) => WEBHOOK_DENIAL.test((message ?? '').trim());

/**
 * A validating webhook (OPA Gatekeeper) refused the write: the caller's request broke a policy, so it is the
 * caller's 403, not an operator problem. Gatekeeper lists one `[constraint] message` per line; each becomes a
 * violation in `details.violations`.
 */
function webhookDenial(message: string): PorticoError | undefined {
  const m = WEBHOOK_DENIAL.exec(message.trim());
  if (!m) return undefined;
  const [, webhook, reason] = m;
  const violations = reason!
    .split('\n')
    .map((line) => /^\s*\[([^\]]+)\]\s*([\s\S]*)$/.exec(line))
    .flatMap((v) => (v ? [{ constraintName: v[1]!.replace(/^denied by /, ''), message: v[2]!.trim() }] : []));
  return forbidden(message, { webhook, violations: violations.length > 0 ? violations : [{ message: reason!.trim() }] });
}

/**
 * Maps an API server error to the PorticoError a caller of the Cluster port expects. `what` names the
 * object for NOT_FOUND details (`Project`, `alpha/shop`).
 */
export function toPorticoError(res: KubeResponse, what: { kind: string; identifier: string }): PorticoError {
  const status = statusOf(res);
  const message = status.message ?? `HTTP ${res.status}`;
  switch (res.status) {
    case 404:
      return notFound(what.kind, what.identifier);
    case 409:
      // AlreadyExists (create) or Conflict (stale metadata.resourceVersion in a patch).
      return conflict(
        status.reason === 'AlreadyExists'
          ? `${what.kind} "${what.identifier}" already exists`
          : `${what.kind} "${what.identifier}" was modified: reload it and retry`,
        { reason: status.reason ?? 'Conflict', kind: what.kind, name: what.identifier },
      );
    case 422: {
      // Invalid: the object failed the API server's (or the CRD schema's) validation.
      const causes = status.details?.causes ?? [];
      const fields = Object.fromEntries(causes.map((c) => [c.field ?? '', c.message ?? c.reason ?? 'invalid']));
      return causes.length ? validationFailed(fields, message) : badRequest(message);
    }
    case 400:
      return badRequest(message);
    case 403: {
      const denied = webhookDenial(message);
      if (denied) return denied;
      // Otherwise Portico's own RBAC is wrong: an operator problem, never the end user's.
      return new PorticoError('INTERNAL_ERROR', `the Kubernetes API refused Portico's request (${res.status}): ${message}`);
    }
    case 401:
      // Portico's own credentials are wrong: an operator problem, never the end user's.
      return new PorticoError('INTERNAL_ERROR', `the Kubernetes API refused Portico's request (${res.status}): ${message}`);
    default:
      if (isServerSide(res.status)) return unavailable('kubernetes', retryAfterOf(res) ?? 5, new Error(message));
      return new PorticoError('INTERNAL_ERROR', `unexpected answer from the Kubernetes API (${res.status}): ${message}`);
  }
}
