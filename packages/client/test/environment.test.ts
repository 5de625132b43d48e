import { describe, expect, it } from 'vitest';
import { withEnvironment } from '../src/environment.js';

// Under Node, PORTICO_SERVER and PORTICO_TOKEN stand in for what createClient is not given (a CI job with a project
// token); what the program passes always wins.
describe('createClient options from the environment', () => {
  const env = { PORTICO_SERVER: 'https://portico.example.com', PORTICO_TOKEN: 'from-env' };

  it('fills a missing baseUrl and token from PORTICO_SERVER and PORTICO_TOKEN', () => {
    expect(withEnvironment({}, env)).toMatchObject({ baseUrl: 'https://portico.example.com', token: 'from-env' });
  });

  it('keeps what the program passes, and sends no environment token when getToken is given', () => {
    expect(withEnvironment({ baseUrl: 'http://own', token: 'own' }, env)).toMatchObject({ baseUrl: 'http://own', token: 'own' });
    expect(withEnvironment({ getToken: () => undefined }, env).token).toBeUndefined();
  });

  it('without a baseUrl anywhere, says which variable would give one', () => {
    expect(() => withEnvironment({}, {})).toThrow('createClient: give a baseUrl (or set PORTICO_SERVER)');
  });
});
