import { badRequest } from '../errors.js';

/**
 * Continue tokens of the field's secrets list (§11.3 family 2): where the previous page ended, as
 * `<namespace>/<name>` in base64url. A page starts after that key in the list's order, so Secrets created or
 * deleted between two pages neither repeat nor shift the ones still to come. The token says nothing the caller
 * could not see on the page it came with.
 */
export const continueAfter = (namespace: string, name: string) => Buffer.from(`${namespace}/${name}`, 'utf8').toString('base64url');

/** The `<namespace>/<name>` a token continues after; 400 naming `continue` for anything that is not one of ours. */
export function continuePoint(token: string): string {
  const key = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(key) || continueAfter(...(key.split('/') as [string, string])) !== token) {
    throw badRequest('invalid continue token: pass the continue of the previous page', { parameter: 'continue' });
  }
  return key;
}
