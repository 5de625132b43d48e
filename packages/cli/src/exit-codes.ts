import { PorticoApiError } from '@portico/client';

/** The CLI's exit codes (docs/cli.md). */
export const ExitCode = {
  ok: 0,
  /** A "no" (can-i) or something that does not exist. */
  no: 1,
  usage: 2,
  /** Not signed in, session expired (401) or not allowed (403). */
  auth: 3,
  /** A server error or any other failure. */
  failure: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the CLI itself raises, with the exit code it means. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, ExitCode.usage);
export const sessionExpired = () => new CliError('session expired, run portico login', ExitCode.auth);
export const tokenRefused = () => new CliError('the token given (--token or PORTICO_TOKEN) was refused: it is invalid, expired or revoked', ExitCode.auth);

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof PorticoApiError) {
    if (error.status === 401 || error.status === 403) return ExitCode.auth;
    if (error.status === 404) return ExitCode.no;
    return ExitCode.failure;
  }
  return ExitCode.failure;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();

/** `error: FORBIDDEN: permission denied (request abc123)`: one line, with what the server said is wrong. */
export function errorLine(error: unknown): string {
  if (error instanceof PorticoApiError) {
    let text = `${error.code}: ${oneLine(error.message)}`;
    const fields = error.details.fields;
    if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
      const list = Object.entries(fields as Record<string, unknown>).map(([path, problem]) => `${path}: ${oneLine(String(problem))}`);
      if (list.length) text += ` (${list.join('; ')})`;
    }
    const allowed = error.details.allowed;
    if (Array.isArray(allowed)) text += ` (allowed: ${allowed.join(', ')})`;
    if (error.requestId) text += ` (request ${error.requestId})`;
    return `error: ${text}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${oneLine(message)}`;
}

/**
 * The policy violations a refusal lists (Enterprise: a create that breaks `deny` constraints), one line each
 * under the error line, so a person sees every rule to fix at once. Empty for any other error.
 */
export function violationLines(error: unknown): string[] {
  if (!(error instanceof PorticoApiError) || !Array.isArray(error.details.violations)) return [];
  return error.details.violations.map((v: unknown) => {
    const { constraintKind, constraintName, resource, message } = (v ?? {}) as { constraintKind?: string; constraintName?: string; resource?: { kind?: string; name?: string }; message?: string };
    const on = resource?.kind && resource.name ? ` ${resource.kind}/${resource.name}:` : '';
    return `  - ${constraintKind ?? '?'}/${constraintName ?? '?'}${on} ${oneLine(String(message ?? ''))}`;
  });
}
