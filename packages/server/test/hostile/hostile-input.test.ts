import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceListQuery } from '@portico/api';
import { SignJWT } from 'jose';
import { resources, SIGNING_KEY_FIELD, SIGNING_KEY_SECRET, systemActor } from '@portico/core';
import { rawRequest, type RawRequest, type RawResponse } from './raw-http.js';
import { startPorticoStack, type PorticoStack } from './stack.js';

type Watched = 'projects' | 'accounts' | 'instances';

interface Case {
  name: string;
  req: RawRequest;
  /** Sent with the admin's bearer token (the most privileged caller: a refusal cannot be for lack of rights). */
  asAdmin?: boolean;
  /** The state that must be exactly the same afterwards. */
  watch?: Watched;
  /** The exact status, when the contract fixes it; otherwise any 4xx. */
  status?: number;
  code?: string;
  /** Refused by Node's HTTP parser before the application sees it: 4xx, envelope not guaranteed. */
  parser?: boolean;
}

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}): RawRequest => ({
  method,
  path,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
});
const get = (path: string, headers: Record<string, string> = {}): RawRequest => ({ method: 'GET', path, headers });

const dest = [{ namespace: 'dev' }];
const nestedArrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const nestedObjects = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
const twoMiB = Buffer.alloc(2 * 1024 * 1024, 'a');
const bigJson = JSON.stringify({ name: 'big', description: 'x'.repeat(2 * 1024 * 1024) });
const cyrillicA = '\u0430';

const cases: Case[] = [
  // malformed and hostile JSON on a mutating route
  { name: 'truncated JSON', req: json('POST', '/api/v1/projects', '{"name":'), asAdmin: true, watch: 'projects', status: 400, code: 'BAD_REQUEST' },
  { name: 'trailing garbage after JSON', req: json('POST', '/api/v1/projects', '{"name":"p1"} {"name":"p2"}'), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'single-quoted JSON', req: json('POST', '/api/v1/projects', "{'name':'p1'}"), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'JSON with a BOM', req: json('POST', '/api/v1/projects', `\ufeff${JSON.stringify({ name: 'bom', destinations: dest })}`), asAdmin: true, watch: 'projects', status: 400 },
  { name: '100,000 nested arrays', req: json('POST', '/api/v1/projects', nestedArrays), asAdmin: true, watch: 'projects', status: 400 },
  { name: '50,000 nested objects', req: json('POST', '/api/v1/projects', nestedObjects), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'an array where an object is expected', req: json('POST', '/api/v1/projects', [{ name: 'arr', destinations: dest }]), asAdmin: true, watch: 'projects', status: 400, code: 'VALIDATION_FAILED' },
  { name: 'a bare number as the body', req: json('POST', '/api/v1/projects', '42'), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a bare string as the body', req: json('POST', '/api/v1/projects', '"alpha"'), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'null as the body', req: json('POST', '/api/v1/projects', 'null'), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a number as the project name', req: json('POST', '/api/v1/projects', { name: 123, destinations: dest }), asAdmin: true, watch: 'projects', status: 400, code: 'VALIDATION_FAILED' },
  { name: 'an object as the description', req: json('POST', '/api/v1/projects', { name: 'desc', description: { a: 1 } }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'destinations as an object', req: json('POST', '/api/v1/projects', { name: 'dst', destinations: { namespace: 'dev' } }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'an oversized destinations array', req: json('POST', '/api/v1/projects', { name: 'many', destinations: Array.from({ length: 5000 }, (_, i) => ({ namespace: `ns-${i}` })) }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'an oversized roles array', req: json('POST', '/api/v1/projects', { name: 'roles', roles: Array.from({ length: 500 }, (_, i) => ({ name: `r${i}` })) }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a 900 KB policy list', req: json('POST', '/api/v1/projects', { name: 'pol', roles: [{ name: 'r', policies: Array.from({ length: 200 }, () => 'x'.repeat(4500)) }] }), asAdmin: true, watch: 'projects', status: 400 },

  // text that is not Unicode: an escape of half a surrogate pair, in a value and in a key
  { name: 'an unpaired high surrogate escape in a value', req: json('POST', '/api/v1/projects', '{"name":"half1","description":"x \\ud800 y","destinations":[{"namespace":"dev"}]}'), asAdmin: true, watch: 'projects', status: 400, code: 'BAD_REQUEST' },
  { name: 'an unpaired low surrogate escape in a key', req: json('POST', '/api/v1/projects', '{"name":"half2","destinations":[{"namespace":"dev","\\udc00":1}]}'), asAdmin: true, watch: 'projects', status: 400, code: 'BAD_REQUEST' },
  // prototype pollution keys
  { name: '__proto__ at the top of a body', req: json('POST', '/api/v1/projects', '{"__proto__":{"polluted":"yes"},"name":"proto1","destinations":[{"namespace":"dev"}]}'), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'constructor.prototype in a body', req: json('POST', '/api/v1/projects', '{"name":"proto2","constructor":{"prototype":{"polluted":"yes"}}}'), asAdmin: true, watch: 'projects', status: 400 },
  { name: '__proto__ nested in an array item', req: json('POST', '/api/v1/projects', '{"name":"proto3","destinations":[{"namespace":"dev","__proto__":{"polluted":"yes"}}]}'), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a "prototype" key', req: json('POST', '/api/v1/projects', '{"name":"proto4","prototype":{"polluted":"yes"}}'), asAdmin: true, watch: 'projects', status: 400 },
  { name: '__proto__ in instance values', req: json('POST', '/api/v1/namespaces/dev/instances/WebApp', '{"name":"evil","project":"alpha","values":{"image":"x","__proto__":{"polluted":"yes"}}}'), asAdmin: true, watch: 'instances', status: 400 },
  { name: '__proto__[x] in a query string', req: get('/api/v1/rgds?__proto__[polluted]=yes'), asAdmin: true, status: 400 },
  { name: 'constructor[prototype] in a query string', req: get('/api/v1/instances?constructor[prototype][polluted]=yes'), asAdmin: true, status: 400 },
  { name: 'a dotted __proto__ query key', req: get('/api/v1/projects?a.__proto__.polluted=yes'), asAdmin: true, status: 400 },
  { name: 'a __proto__ key in a login body', req: json('POST', '/api/v1/auth/local/login', '{"username":"admin","password":"x","__proto__":{"admin":true}}'), status: 400 },

  // names: unicode confusables, encoded slashes, control characters
  { name: 'a Cyrillic "а" in a project name', req: json('POST', '/api/v1/projects', { name: `${cyrillicA}lpha`, destinations: dest }), asAdmin: true, watch: 'projects', status: 400, code: 'VALIDATION_FAILED' },
  { name: 'a fullwidth project name', req: json('POST', '/api/v1/projects', { name: '\uff41lpha', destinations: dest }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a NUL in a project name', req: json('POST', '/api/v1/projects', { name: 'alpha\u0000', destinations: dest }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a slash in a project name', req: json('POST', '/api/v1/projects', { name: 'alpha/../beta', destinations: dest }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a 64-character project name', req: json('POST', '/api/v1/projects', { name: 'a'.repeat(64), destinations: dest }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a right-to-left override in a namespace', req: json('POST', '/api/v1/projects', { name: 'rtl', destinations: [{ namespace: 'dev\u202e' }] }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a Cyrillic project name in the path', req: get('/api/v1/projects/%D0%B0lpha'), asAdmin: true, status: 400 },
  { name: 'an encoded slash in a project name', req: get('/api/v1/projects/alpha%2Fbeta'), asAdmin: true, status: 400 },
  { name: 'an encoded ../ in a project name', req: get('/api/v1/projects/..%2Fbeta'), asAdmin: true, status: 400 },
  { name: 'an encoded NUL in a project name', req: get('/api/v1/projects/alpha%00'), asAdmin: true, status: 400 },
  { name: 'malformed percent-encoding in a path', req: get('/api/v1/projects/%E0%A4%A'), asAdmin: true, status: 400 },
  { name: 'an encoded CR/LF in a path name', req: get('/api/v1/projects/alpha%0D%0ASet-Cookie:%20x=1'), asAdmin: true, status: 400 },
  { name: 'path traversal into an RGD name', req: get('/api/v1/rgds/..%2f..%2fetc%2fpasswd'), asAdmin: true },
  { name: 'path traversal into a namespace', req: get('/api/v1/namespaces/..%2Fkube-system/instances/WebApp/shop'), asAdmin: true, status: 400 },
  { name: 'path traversal into an instance name', req: get('/api/v1/namespaces/dev/instances/WebApp/..%2F..%2Fsecrets'), asAdmin: true, status: 400 },
  { name: 'an encoded slash in a kind', req: json('POST', '/api/v1/instances/_/Web%2FApp', { name: 'slash', project: 'alpha', values: { image: 'x' } }), asAdmin: true, watch: 'instances', status: 400 },
  { name: 'an encoded slash in a cluster-scoped kind read', req: get('/api/v1/instances/_/Web%2FApp/shop'), asAdmin: true, status: 400 },
  { name: 'deleting an instance through an encoded path', req: { method: 'DELETE', path: '/api/v1/namespaces/dev/instances/WebApp/shop%2F..%2Fother' }, asAdmin: true, watch: 'instances', status: 400 },
  { name: 'binding a user through ../', req: { method: 'POST', path: '/api/v1/projects/alpha/roles/developer/users/..%2F..%2Fadmin' }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'binding a user with CR/LF', req: { method: 'POST', path: '/api/v1/projects/alpha/roles/developer/users/bob%0D%0A' }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'binding a confusable group', req: { method: 'POST', path: '/api/v1/projects/alpha/roles/developer/groups/%D0%B0dmins' }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'binding to an upper-case role', req: { method: 'POST', path: '/api/v1/projects/alpha/roles/DEVELOPER/users/bob' }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'unbinding through an encoded slash', req: { method: 'DELETE', path: '/api/v1/projects/alpha/roles/developer/users/alice%2Fx' }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a raw ../ out of the explorer', req: get('/swagger/../package.json') },
  { name: 'an encoded ../ out of the explorer', req: get('/swagger/%2e%2e/package.json') },
  { name: 'a raw ../ out of the API', req: get('/api/v1/../../etc/passwd'), asAdmin: true },
  { name: 'a double slash before the API', req: get('//api/v1/projects'), asAdmin: true },

  // accounts
  { name: 'a confusable account name', req: json('POST', '/api/v1/accounts', { username: `${cyrillicA}dmin`, password: 'long-enough-password' }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'an account name with ../', req: json('POST', '/api/v1/accounts', { username: '../admin', password: 'long-enough-password' }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'an upper-case account name', req: json('POST', '/api/v1/accounts', { username: 'Admin', password: 'long-enough-password' }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'groups as a string', req: json('POST', '/api/v1/accounts', { username: 'gus', password: 'long-enough-password', groups: 'admins' }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'an oversized groups array', req: json('POST', '/api/v1/accounts', { username: 'gus', password: 'long-enough-password', groups: Array.from({ length: 10_000 }, (_, i) => `g${i}`) }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'a group with a newline', req: json('POST', '/api/v1/accounts', { username: 'gus', password: 'long-enough-password', groups: ['ops\nadmins'] }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'a password as a number', req: json('POST', '/api/v1/accounts', { username: 'gus', password: 12345678 }), asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'deleting an account through ../', req: { method: 'DELETE', path: '/api/v1/accounts/..%2Fadmin' }, asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'deleting an account with a NUL', req: { method: 'DELETE', path: '/api/v1/accounts/gina%00' }, asAdmin: true, watch: 'accounts', status: 400 },

  // instances
  { name: 'instance values as an array', req: json('POST', '/api/v1/namespaces/dev/instances/WebApp', { name: 'arr', project: 'alpha', values: ['image'] }), asAdmin: true, watch: 'instances', status: 400 },
  { name: 'an operator object as the project', req: json('POST', '/api/v1/instances', { name: 'op', namespace: 'dev', rgdName: 'webapp', projectId: { $ne: null }, spec: { image: 'x' } }), asAdmin: true, watch: 'instances', status: 400 },
  { name: 'a number as a string in values', req: json('POST', '/api/v1/namespaces/dev/instances/WebApp', { name: 'strnum', project: 'alpha', values: { image: 'x', replicas: '3' } }), asAdmin: true, watch: 'instances', status: 400, code: 'VALIDATION_FAILED' },
  { name: 'a unicode instance name', req: json('POST', '/api/v1/namespaces/dev/instances/WebApp', { name: `sh${cyrillicA}p`, project: 'alpha', values: { image: 'x' } }), asAdmin: true, watch: 'instances', status: 400 },
  { name: 'a patch whose spec is an array', req: json('PATCH', '/api/v1/namespaces/dev/instances/WebApp/shop', { spec: ['replicas', 5] }), asAdmin: true, watch: 'instances', status: 400 },

  // query strings
  { name: 'a page that is not a number', req: get('/api/v1/rgds?page=abc'), asAdmin: true, status: 400, code: 'VALIDATION_FAILED' },
  { name: 'a fractional page', req: get('/api/v1/instances?page=1.5'), asAdmin: true, status: 400 },
  { name: 'a negative page size', req: get('/api/v1/rgds?pageSize=-1'), asAdmin: true, status: 400 },
  { name: 'a page size over 500', req: get('/api/v1/instances?pageSize=100000'), asAdmin: true, status: 400 },
  { name: 'an empty page', req: get('/api/v1/rgds?page='), asAdmin: true, status: 400 },
  { name: 'a repeated scalar parameter', req: get('/api/v1/rgds?page=1&page=2'), asAdmin: true, status: 400 },
  { name: 'an unknown sort order', req: get('/api/v1/instances?sortOrder=DESC%3Bdrop'), asAdmin: true, status: 400 },
  { name: 'a 14 KB search string', req: get(`/api/v1/rgds?search=${'a'.repeat(14_000)}`), asAdmin: true, status: 400 },
  { name: 'a hexadecimal page size (issue 15)', req: get('/api/v1/instances?pageSize=0x10'), asAdmin: true, status: 400, code: 'VALIDATION_FAILED' },
  { name: 'an exponent page size (issue 15)', req: get('/api/v1/rgds?pageSize=1e1'), asAdmin: true, status: 400, code: 'VALIDATION_FAILED' },
  { name: 'a binary page (issue 15)', req: get('/api/v1/instances?page=0b1'), asAdmin: true, status: 400, code: 'VALIDATION_FAILED' },
  { name: 'a page size padded with spaces (issue 15)', req: get('/api/v1/rgds?pageSize=%2010%20'), asAdmin: true, status: 400, code: 'VALIDATION_FAILED' },
  { name: 'an unknown health value', req: get('/api/v1/instances?health=%00'), asAdmin: true, status: 400 },

  // bodies: size, encoding, content type
  { name: 'a 2 MiB body with Content-Length', req: json('POST', '/api/v1/projects', bigJson), asAdmin: true, watch: 'projects', status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'a 2 MiB chunked body without Content-Length', req: { method: 'POST', path: '/api/v1/projects', headers: { 'content-type': 'application/json' }, body: twoMiB, chunked: 64 * 1024 }, asAdmin: true, watch: 'projects', status: 413 },
  { name: 'a 2 MiB chunked body on a route without a body', req: { method: 'POST', path: '/api/v1/ws/ticket', body: twoMiB, chunked: 64 * 1024 }, asAdmin: true },
  { name: 'a 2 MiB chunked JSON body on a route without a body', req: { method: 'POST', path: '/api/v1/auth/logout', headers: { 'content-type': 'application/json' }, body: twoMiB, chunked: 64 * 1024 }, asAdmin: true, status: 413 },
  { name: 'a 2 MiB login body', req: json('POST', '/api/v1/auth/local/login', twoMiB), status: 413 },
  { name: 'invalid UTF-8 in a JSON body', req: json('POST', '/api/v1/projects', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('","destinations":[{"namespace":"dev"}]}')])), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'invalid UTF-8 in a free-text field (issue 15)', req: json('POST', '/api/v1/projects', Buffer.concat([Buffer.from('{"name":"utf8-bad","description":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('","destinations":[{"namespace":"dev"}]}')])), asAdmin: true, watch: 'projects', status: 400, code: 'BAD_REQUEST' },
  { name: 'an overlong UTF-8 encoding of "/" (issue 15)', req: json('POST', '/api/v1/accounts', Buffer.concat([Buffer.from('{"username":"olga","password":"long-enough-password","groups":["a'), Buffer.from([0xc0, 0xaf]), Buffer.from('b"]}')])), asAdmin: true, watch: 'accounts', status: 400, code: 'BAD_REQUEST' },
  { name: 'a lone UTF-8 surrogate in instance values (issue 15)', req: json('PATCH', '/api/v1/namespaces/dev/instances/WebApp/shop', Buffer.concat([Buffer.from('{"spec":{"image":"nginx'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')])), asAdmin: true, watch: 'instances', status: 400, code: 'BAD_REQUEST' },
  { name: 'UTF-16 declared as JSON', req: json('POST', '/api/v1/projects', Buffer.from(JSON.stringify({ name: 'utf16' }), 'utf16le'), { 'content-type': 'application/json; charset=utf-16' }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'JSON sent as text/plain', req: json('POST', '/api/v1/projects', { name: 'plain', destinations: dest }, { 'content-type': 'text/plain' }), asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a form-encoded body', req: { method: 'POST', path: '/api/v1/projects', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=form' }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a JSON body without a content type', req: { method: 'POST', path: '/api/v1/projects', body: JSON.stringify({ name: 'notype', destinations: dest }) }, asAdmin: true, watch: 'projects', status: 400 },
  { name: 'a multipart body', req: { method: 'POST', path: '/api/v1/accounts', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nmulti\r\n--x--' }, asAdmin: true, watch: 'accounts', status: 400 },
  { name: 'a non-numeric Content-Length', req: { method: 'POST', path: '/api/v1/projects', headers: { 'content-type': 'application/json', 'content-length': 'abc' }, body: '{}' }, asAdmin: true, watch: 'projects', parser: true },
  { name: 'both Content-Length and chunked (request smuggling)', req: { method: 'POST', path: '/api/v1/projects', headers: { 'content-type': 'application/json', 'content-length': '4' }, body: '{"name":"smuggled"}', chunked: 8 }, asAdmin: true, watch: 'projects', parser: true },

  // the request line and headers
  { name: 'a NUL in the request path', req: get('/api/v1/projects\u0000/alpha'), parser: true },
  { name: 'a bare CR injected into the request line', req: get('/healthz\rX-Injected: 1'), parser: true },
  { name: 'CR/LF injected into a header value', req: { method: 'GET', path: '/api/v1/projects', rawHeaderLines: ['x-request-id: a\r\n\tX-Injected: 1'] }, parser: true },
  { name: 'a space in the request path', req: get('/api/v1/projects/al pha'), parser: true },
  { name: 'an unknown method', req: { method: 'FOO', path: '/api/v1/projects' }, parser: true },
  { name: 'TRACE', req: { method: 'TRACE', path: '/api/v1/projects' }, asAdmin: true },
  { name: 'a 64 KB header', req: get('/api/v1/projects', { 'x-padding': 'a'.repeat(64 * 1024) }), parser: true },
  { name: '2,000 small headers', req: { method: 'GET', path: '/api/v1/projects', rawHeaderLines: Array.from({ length: 2000 }, (_, i) => `x-h${i}: ${'v'.repeat(10)}`) }, parser: true },
  { name: 'a 100 KB bearer token', req: get('/api/v1/projects', { authorization: `Bearer ${'a'.repeat(100 * 1024)}` }), parser: true },
  { name: 'a header name with a space', req: { method: 'GET', path: '/healthz', rawHeaderLines: ['bad header: x'] }, parser: true },
  { name: 'a header value with a bare CR', req: { method: 'GET', path: '/healthz', rawHeaderLines: ['x-request-id: a\rSet-Cookie: x=1'] }, parser: true },
  { name: 'a Basic authorization header', req: get('/api/v1/projects', { authorization: 'Basic YWRtaW46YWRtaW4=' }), status: 401, code: 'UNAUTHORIZED' },
  { name: 'an alg:none token', req: get('/api/v1/projects', { authorization: `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"admin"}').toString('base64url')}.` }), status: 401 },
  { name: 'a garbage session cookie', req: get('/api/v1/projects', { cookie: 'portico_session=%00%ff;portico_session=x' }), status: 401 },

  // sign-in and redirects
  { name: 'a header injection in the sign-in redirect', req: get('/api/v1/auth/oidc/login?redirect=/x%0d%0aSet-Cookie:%20portico_session=evil'), status: 400 },
  { name: 'a protocol-relative sign-in redirect', req: get('/api/v1/auth/oidc/login?redirect=//evil.example/x'), status: 400 },
  { name: 'an off-site sign-in redirect', req: get('/api/v1/auth/oidc/login?redirect=https%3A%2F%2Fevil.example%2F'), status: 400 },
  { name: 'a backslash sign-in redirect', req: get('/api/v1/auth/oidc/login?redirect=/%5Cevil.example'), status: 400 },
  { name: 'a javascript: sign-in redirect', req: get('/api/v1/auth/oidc/login?redirect=javascript:alert(document.cookie)'), status: 400 },
  { name: 'an unknown provider with markup', req: get('/api/v1/auth/oidc/login?provider=%3Cscript%3E'), status: 404 },
  { name: 'a forged callback state', req: get('/api/v1/auth/oidc/callback?state=forged&code=x'), status: 400 },
  { name: 'a callback state with CR/LF', req: get('/api/v1/auth/oidc/callback?state=a%0d%0aLocation:%20https://evil.example&code=x'), status: 400 },
  { name: 'a huge callback code', req: get(`/api/v1/auth/oidc/callback?state=s&code=${'c'.repeat(5000)}`), status: 400 },
  { name: 'an unknown one-time code', req: json('POST', '/api/v1/auth/token-exchange', { code: 'A'.repeat(43) }), status: 401 },
  { name: 'a one-time code as a number', req: json('POST', '/api/v1/auth/token-exchange', { code: 123456 }), status: 400 },
  { name: 'a one-time code as an array', req: json('POST', '/api/v1/auth/token-exchange', { code: ['a', 'b'] }), status: 400 },
  { name: 'a login with a username array', req: json('POST', '/api/v1/auth/local/login', { username: ['admin'], password: 'x' }), status: 400 },
  { name: 'a login with a 2,000-character password', req: json('POST', '/api/v1/auth/local/login', { username: 'admin', password: 'p'.repeat(2000) }), status: 400 },
  { name: 'a login as a confusable admin', req: json('POST', '/api/v1/auth/local/login', { username: `${cyrillicA}dmin`, password: 'correct-horse-battery-staple' }), status: 401 },
];

describe('hostile input against a real server', () => {
  let stack: PorticoStack;
  let token: string;
  const admin = systemActor('admin');

  const snapshot = async (what: Watched) => {
    if (what === 'projects') return JSON.stringify(stack.portico.projects.list(admin));
    if (what === 'accounts') return JSON.stringify(await stack.portico.accounts.list(admin));
    return JSON.stringify(stack.portico.instances.list(admin, InstanceListQuery.parse({ pageSize: 500 })));
  };

  beforeAll(async () => {
    stack = await startPorticoStack({
      env: {
        // Limits off: this suite is about input, and 120 requests as one user would trip them.
        PORTICO_RATE_LIMITS: '0',
        PORTICO_OIDC_ISSUER: 'http://127.0.0.1:9',
        PORTICO_OIDC_CLIENT_ID: 'portico',
        PORTICO_OIDC_CLIENT_SECRET: 'unused',
        PORTICO_PUBLIC_URL: 'http://portico.test',
      },
    });
    token = await stack.adminToken();
    await stack.portico.accounts.create(admin, { username: 'gina', password: 'gina-password-1', groups: ['ops'] });
    await stack.portico.instances.create(admin, { name: 'shop', namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx' } });
  });
  afterAll(() => stack?.close());

  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: a 4xx envelope, nothing changed, still serving', async (_name, c) => {
    const before = c.watch ? await snapshot(c.watch) : undefined;
    const req = c.asAdmin ? { ...c.req, headers: { authorization: `Bearer ${token}`, ...c.req.headers } } : c.req;
    const res: RawResponse = await rawRequest(stack.port, req);

    expect(res.status, res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(res.status, res.body.slice(0, 300)).toBeLessThan(500);
    if (c.status) expect(res.status, res.body.slice(0, 300)).toBe(c.status);
    if (!c.parser || res.json) {
      expect(res.json, res.body.slice(0, 300)).toMatchObject({ code: expect.any(String), message: expect.any(String), details: expect.any(Object) });
      if (c.code) expect(res.json.code).toBe(c.code);
      // Error messages are ours: no long stretch of the input is echoed back.
      expect(res.body).not.toMatch(/(.)\1{200}/);
    }
    // Whatever was tried, no session cookie came back and no header carries what the request injected.
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['x-injected']).toBeUndefined();
    expect(res.headers.location).toBeUndefined();

    if (c.watch) expect(await snapshot(c.watch)).toBe(before);
    const health = await rawRequest(stack.port, get('/healthz'));
    expect(health.status).toBe(200);
  });

  it('a token signed with the real key but issued in the future (issue 15): 401, and the same token issued now passes', async () => {
    const secret = await stack.portico.cluster.get(resources.secret, SIGNING_KEY_SECRET, stack.portico.config.kubernetes.namespace);
    const key = new Uint8Array(Buffer.from(String(secret?.data?.[SIGNING_KEY_FIELD]), 'base64'));
    const tokenIssuedAt = (iat: number) =>
      new SignJWT({ name: 'admin', groups: [], local: true })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('admin')
        .setJti(`future-${iat}`)
        .setIssuer(stack.portico.config.issuer)
        .setAudience('portico')
        .setIssuedAt(iat)
        .setExpirationTime(iat + 3600)
        .sign(key);
    const now = Math.floor(Date.now() / 1000);
    const future = await rawRequest(stack.port, get('/api/v1/projects', { authorization: `Bearer ${await tokenIssuedAt(now + 3600)}` }));
    expect([future.status, future.json?.code]).toEqual([401, 'UNAUTHORIZED']);
    const present = await rawRequest(stack.port, get('/api/v1/projects', { authorization: `Bearer ${await tokenIssuedAt(now)}` }));
    expect(present.status).toBe(200);
  });

  it('left no prototype polluted', () => {
    const probe = {} as Record<string, unknown>;
    expect(probe.polluted).toBeUndefined();
    expect(probe.admin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('still answers authenticated requests correctly afterwards', async () => {
    const res = await rawRequest(stack.port, get('/api/v1/projects/alpha', { authorization: `Bearer ${token}` }));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'alpha' });
  });
});
