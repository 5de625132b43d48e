import { z } from 'zod';

/** Every error code of the contract (§1) with its HTTP status; the one place both sides look them up. */
export const errorStatus = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  LICENSE_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE: 422,
  DEPLOYMENT_MODE_NOT_ALLOWED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  /** §13: the Git remote refused or could not be reached; nothing was changed. */
  GITOPS_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

export const ErrorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()),
  requestId: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Codes carried by WebSocket `error` frames. */
export const wsErrorCodes = ['INVALID_MESSAGE', 'INVALID_RESOURCE_TYPE', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED'] as const;
