import { errorCodes, wsErrorCodes } from '@portico/api';
import { describe, expect, it } from 'vitest';
import { PorticoApiError, type PorticoErrorCode } from '../src/index.js';
import { errorFromResponse } from '../src/errors.js';

/** A switch a caller would write; `never` in the default makes the compiler list any code it forgot. */
function advice(code: PorticoErrorCode): string {
  switch (code) {
    case 'UNAUTHORIZED':
      return 'sign in again';
    case 'RATE_LIMIT_EXCEEDED':
    case 'SERVICE_UNAVAILABLE':
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      return 'retry later';
    default:
      return 'see the message';
  }
}

describe('PorticoErrorCode', () => {
  it('is a closed union: a code that is not in the api error table does not type-check', () => {
    // @ts-expect-error: not a code of the contract nor of the SDK (npm run lint fails if this line compiles)
    const wrong: PorticoErrorCode = 'PERMISSION_DENIED';
    const fromTable: PorticoErrorCode[] = [...errorCodes, ...wsErrorCodes, 'ABORTED', 'HTTP_502'];
    expect(fromTable).toContain('FORBIDDEN');
    expect(typeof wrong).toBe('string');
    expect(advice('TIMEOUT')).toBe('retry later');
  });

  it('carries the server code of the envelope, else the table code for the status, else HTTP_<status>', () => {
    const envelope = errorFromResponse(new Response(null, { status: 409 }), JSON.stringify({ code: 'CONFLICT', message: 'stale', details: {} }));
    expect(envelope).toBeInstanceOf(PorticoApiError);
    expect(envelope.code).toBe('CONFLICT');
    expect(errorFromResponse(new Response(null, { status: 404 }), '<html>not here</html>').code).toBe('NOT_FOUND');
    expect(errorFromResponse(new Response(null, { status: 502 }), 'Bad Gateway').code).toBe('HTTP_502');
  });
});
