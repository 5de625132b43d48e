import type { ClientOptions } from './options.js';

/** What `createClient` takes: the options, where `baseUrl` may come from the environment instead. */
export type ClientInput = Omit<ClientOptions, 'baseUrl'> & { baseUrl?: string };

/** The process environment under Node; none in a browser. */
const processEnv = (): Record<string, string | undefined> => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};

/**
 * Non-interactive use (a CI job with a project token): under Node, `PORTICO_SERVER` stands in for a `baseUrl`
 * left out, and `PORTICO_TOKEN` for a token when neither `token` nor `getToken` is given. What the program
 * passes always wins.
 */
export function withEnvironment(input: ClientInput, env: Record<string, string | undefined> = processEnv()): ClientOptions {
  const baseUrl = input.baseUrl ?? env.PORTICO_SERVER;
  if (!baseUrl) throw new TypeError('createClient: give a baseUrl (or set PORTICO_SERVER)');
  const token = input.token ?? (input.getToken ? undefined : env.PORTICO_TOKEN || undefined);
  return { ...input, baseUrl, token };
}
