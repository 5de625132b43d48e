import { randomUUID } from 'node:crypto';
import { login, type TestPortico } from './portico.js';

/** A response, its JSON body parsed (undefined when empty). */
export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

/** Plain fetch calls as one caller, bearer-authenticated. */
export interface ApiAs {
  token: string;
  call<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  get<T = any>(path: string): Promise<Reply<T>>;
  post<T = any>(path: string, body?: unknown): Promise<Reply<T>>;
  put<T = any>(path: string, body: unknown): Promise<Reply<T>>;
  del<T = any>(path: string): Promise<Reply<T>>;
  patch<T = any>(path: string, body: unknown): Promise<Reply<T>>;
}

export function apiAs(url: string, token: string): ApiAs {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<Reply<T>> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    const replyHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => (replyHeaders[name] = value));
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: replyHeaders };
  };
  return {
    token,
    call,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    del: (path) => call('DELETE', path),
    patch: (path, body) => call('PATCH', path, body),
  };
}

export interface TestUser extends ApiAs {
  username: string;
  groups: string[];
}

/** A name unique to this run, DNS-label shaped (projects, accounts, groups). */
export const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * Creates a local account as the admin (`POST /api/v1/accounts`) and signs it in. Its groups are in its
 * token, so a user whose groups must change is a new account.
 */
export async function createUser(tp: TestPortico, prefix: string, groups: string[] = []): Promise<TestUser> {
  const username = uniqueName(prefix);
  const password = `pw-${randomUUID()}`;
  const created = await apiAs(tp.url, tp.adminToken).post('/api/v1/accounts', { username, password, groups });
  if (created.status !== 201) throw new Error(`creating account ${username} answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { ...apiAs(tp.url, await login(tp.url, username, password)), username, groups };
}

/** Creates a project as the admin with the conventional roles (no `roles` in the body). */
export async function createProject(tp: TestPortico, prefix: string, destinations: string[] = ['dev']): Promise<string> {
  const name = uniqueName(prefix);
  const res = await apiAs(tp.url, tp.adminToken).post('/api/v1/projects', {
    name,
    description: `acceptance ${prefix}`,
    destinations: destinations.map((namespace) => ({ namespace })),
  });
  if (res.status !== 201) throw new Error(`creating project ${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return name;
}
