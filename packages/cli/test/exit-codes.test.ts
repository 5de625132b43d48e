import { PorticoApiError, type PorticoErrorCode } from '@portico/client';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode, errorLine, exitCodeFor, violationLines } from '../src/index.js';

const apiError = (status: number, code: PorticoErrorCode, message = 'x', extra: Partial<ConstructorParameters<typeof PorticoApiError>[0]> = {}) =>
  new PorticoApiError({ status, code, message, ...extra });

describe('exit codes', () => {
  it('maps server answers to the documented codes', () => {
    expect(exitCodeFor(apiError(401, 'UNAUTHORIZED'))).toBe(3);
    expect(exitCodeFor(apiError(403, 'FORBIDDEN'))).toBe(3);
    expect(exitCodeFor(apiError(404, 'NOT_FOUND'))).toBe(1);
    expect(exitCodeFor(apiError(409, 'CONFLICT'))).toBe(4);
    expect(exitCodeFor(apiError(400, 'VALIDATION_FAILED'))).toBe(4);
    expect(exitCodeFor(apiError(500, 'INTERNAL_ERROR'))).toBe(4);
    expect(exitCodeFor(apiError(0, 'NETWORK_ERROR'))).toBe(4);
    expect(exitCodeFor(apiError(0, 'TIMEOUT'))).toBe(4);
  });

  it('keeps the code of CLI errors, and 4 for anything else', () => {
    expect(exitCodeFor(new CliError('missing --project', ExitCode.usage))).toBe(2);
    expect(exitCodeFor(new Error('boom'))).toBe(4);
  });
});

describe('errorLine', () => {
  it('names the server code and the request', () => {
    expect(errorLine(apiError(403, 'FORBIDDEN', 'permission denied', { requestId: 'abc123' }))).toBe(
      'error: FORBIDDEN: permission denied (request abc123)',
    );
  });

  it('lists invalid fields on the same line', () => {
    const err = apiError(400, 'VALIDATION_FAILED', 'request validation failed', {
      details: { fields: { 'spec.size': 'must be at most 10', name: 'required' } },
      requestId: 'r1',
    });
    const line = errorLine(err);
    expect(line).toBe('error: VALIDATION_FAILED: request validation failed (spec.size: must be at most 10; name: required) (request r1)');
    expect(line).not.toContain('\n');
  });

  it('shows the allowed namespaces of a destination refusal', () => {
    const err = apiError(403, 'FORBIDDEN', 'namespace not allowed', { details: { allowed: ['alpha-dev', 'alpha-prod'] } });
    expect(errorLine(err)).toBe('error: FORBIDDEN: namespace not allowed (allowed: alpha-dev, alpha-prod)');
  });

  it('folds multi-line messages into one line', () => {
    expect(errorLine(new Error('first\n  second'))).toBe('error: first second');
  });
});

describe('violationLines', () => {
  it('lists every deny policy a refused create breaks, one line each, and nothing for other errors', () => {
    const refused = apiError(403, 'FORBIDDEN', 'the instance violates 2 deny policies', {
      details: {
        violations: [
          { constraintKind: 'K8sRequiredLabels', constraintName: 'need-owner', resource: { kind: 'Deployment', namespace: 'a', name: 'web', apiGroup: 'apps' }, message: 'missing label owner', enforcementAction: 'deny' },
          { constraintKind: 'K8sAllowedRepos', constraintName: 'trusted', resource: { kind: 'Deployment', namespace: 'a', name: 'web', apiGroup: 'apps' }, message: 'image\nnot trusted', enforcementAction: 'deny' },
        ],
      },
    });
    expect(exitCodeFor(refused)).toBe(3);
    expect(violationLines(refused)).toEqual(['  - K8sRequiredLabels/need-owner Deployment/web: missing label owner', '  - K8sAllowedRepos/trusted Deployment/web: image not trusted']);
    expect(violationLines(apiError(403, 'FORBIDDEN', 'permission denied'))).toEqual([]);
    expect(violationLines(new Error('boom'))).toEqual([]);
  });
});
