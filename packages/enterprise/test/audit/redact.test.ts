import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/audit/chain.js';
import { boundedUserAgent, REDACTED, redact, USER_AGENT_MAX_BYTES } from '../../src/audit/redact.js';

/** Every string of a value, at every depth, keys included. */
const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value]
    : Array.isArray(value) ? value.flatMap(strings)
      : value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)])
        : [];

describe('redaction: nothing secret reaches the trail', () => {
  // Each planted value is unique, so a test can ask for each one whether it survived anywhere in the copy.
  const planted = {
    DB_PASSWORD: 'v-db-password',
    apiToken: 'v-api-token',
    clientSecret: 'v-client-secret',
    newPassword: 'v-new-password',
    currentPassword: 'v-current-password',
    'x-api-key': 'v-x-api-key',
    API_KEY: 'v-api-key-upper',
    private_key: 'v-private-key',
    'Private-Key': 'v-private-key-header',
    passwd: 'v-passwd',
    awsCredentials: { accessKeyId: 'v-aws-id', secretAccessKey: 'v-aws-secret' },
    refresh_token: ['v-refresh-1', 'v-refresh-2'],
    Authorization: 'v-bearer',
    cookie: 'v-cookie',
    code: 'v-oidc-code',
    ticket: 'v-ws-ticket',
  };
  const input = {
    params: { name: 'alpha' },
    body: {
      ...planted,
      description: 'kept',
      spec: { values: [{ env: { DB_PASSWORD: 'v-nested-db-password', LOG_LEVEL: 'debug' } }, { deep: { deeper: { password: 'v-nested-password' } } }] },
      error: { errorCode: 'CONFLICT' },
      authorizationURL: 'https://idp.example.com/auth',
      countryCode: 'NL',
    },
  };
  const values = [...strings(planted).filter((s) => s.startsWith('v-')), 'v-nested-db-password', 'v-nested-password'];

  it('replaces the value of every key whose name says secret, whatever its case or separators, at every depth', () => {
    const copy = redact(input) as { params: unknown; body: Record<string, unknown> & { spec: { values: [{ env: Record<string, string> }, { deep: { deeper: { password: string } } }] } } };
    const left = strings(copy);
    for (const value of values) expect(left, value).not.toContain(value);
    for (const key of Object.keys(planted)) expect(copy.body[key], key).toBe(REDACTED);
    expect(copy.body.spec.values[0].env).toEqual({ DB_PASSWORD: REDACTED, LOG_LEVEL: 'debug' });
    expect(copy.body.spec.values[1].deep.deeper.password).toBe(REDACTED);
    // Names that merely resemble a secret keep their values.
    expect(copy.body).toMatchObject({ description: 'kept', error: { errorCode: 'CONFLICT' }, authorizationURL: 'https://idp.example.com/auth', countryCode: 'NL' });
    expect(copy.params).toEqual({ name: 'alpha' });
  });

  it('a password change keeps neither password', () => {
    // The body of `PUT /account/password`, as the recorder hands it over.
    const copy = redact({ body: { currentPassword: 'old-horse-1', newPassword: 'new-horse-2' } });
    expect(copy).toEqual({ body: { currentPassword: REDACTED, newPassword: REDACTED } });
    expect(JSON.stringify(copy)).not.toMatch(/horse/);
  });

  it('replaces the secret bodies the caller names, and only those', () => {
    // §11.3: a Secret's values sit under keys that name nothing secret.
    const secret = { params: { name: 'default' }, body: { name: 'db', namespace: 'dev', data: { DB_HOST: 'v-host', 'tls.crt': 'v-cert' } } };
    const copy = redact(secret, { secretFields: ['data'] });
    expect(copy).toEqual({ params: { name: 'default' }, body: { name: 'db', namespace: 'dev', data: REDACTED } });
    expect(strings(copy)).not.toContain('v-host');
    // Family 2 sets keys with `{namespace, data}`: the same parameter covers it.
    expect(redact({ body: { namespace: 'dev', data: { K: 'v-k' } } }, { secretFields: ['data'] })).toEqual({ body: { namespace: 'dev', data: REDACTED } });
    // Without the parameter a field named `data` is ordinary data (an instance's values, say).
    expect(redact({ body: { data: { size: 'xl' } } })).toEqual({ body: { data: { size: 'xl' } } });

    // §13: a repository's credentials, usernames and certificates included.
    const repo = {
      body: {
        name: 'infra', repoURL: 'https://git.example.com/infra.git', authType: 'https',
        httpsAuth: { username: 'v-git-user', password: 'v-git-password', tlsClientCert: 'v-client-cert', caCert: 'v-ca' },
        sshAuth: { privateKey: 'v-ssh-key', knownHosts: 'v-known-hosts' },
      },
    };
    const redactedRepo = redact(repo, { secretFields: ['httpsAuth', 'sshAuth'] }) as { body: Record<string, unknown> };
    expect(redactedRepo.body).toEqual({ name: 'infra', repoURL: 'https://git.example.com/infra.git', authType: 'https', httpsAuth: REDACTED, sshAuth: REDACTED });
    // §11.6: `clientSecret` is covered by its name already; naming it as a body changes nothing.
    expect(redact({ body: { clientID: 'portico', clientSecret: 'v-oidc-secret' } }, { secretFields: ['clientSecret'] })).toEqual({ body: { clientID: 'portico', clientSecret: REDACTED } });
    // The deprecated flag still covers `data`, until every caller names its fields.
    expect(redact({ body: { data: { k: 'v' } } }, { secretData: true })).toEqual({ body: { data: REDACTED } });
  });

  it('keeps keys sorted at every depth, so the copy\'s canonical text is its JSON.stringify', () => {
    const copy = redact({ z: 1, a: { y: [{ d: 1, c: { f: 1, e: 2 } }], b: 'x' }, m: null }, { secretFields: ['data'] });
    expect(JSON.stringify(copy)).toBe(canonicalJson(copy));
    expect(JSON.stringify(copy)).toBe('{"a":{"b":"x","y":[{"c":{"e":2,"f":1},"d":1}]},"m":null,"z":1}');
  });

  it('cleans NUL and lone surrogates from keys and values, and keeps `__proto__` as a field', () => {
    const copy = redact(JSON.parse('{"a\\u0000":"b\\u0000\\ud800","__proto__":{"token":"t","n":1}}') as unknown) as Record<string, unknown>;
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"n":1,"token":"[REDACTED]"},"a\uFFFD":"b\uFFFD\uFFFD"}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});

describe('boundedUserAgent', () => {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

  it('keeps an ordinary user agent as it is, cleaned', () => {
    expect(boundedUserAgent('curl/8.5.0')).toBe('curl/8.5.0');
    expect(boundedUserAgent('a\u0000b\ud800')).toBe('a\uFFFDb\uFFFD');
    expect(boundedUserAgent('x'.repeat(USER_AGENT_MAX_BYTES))).toHaveLength(USER_AGENT_MAX_BYTES);
  });

  it('cuts a long one to at most 1 KiB of UTF-8, between two characters', () => {
    expect(USER_AGENT_MAX_BYTES).toBe(1024);
    expect(boundedUserAgent('x'.repeat(100_000))).toBe('x'.repeat(1024));
    // Two-byte characters: 512 of them fill the limit exactly.
    expect(boundedUserAgent('é'.repeat(600))).toBe('é'.repeat(512));
    // Three bytes each: 341 fit (1023 bytes), the 342nd would not.
    expect(boundedUserAgent('日'.repeat(400))).toBe('日'.repeat(341));
    // A surrogate pair (4 bytes) that would straddle the limit is dropped whole, never halved.
    const straddling = boundedUserAgent(`${'a'.repeat(1022)}\u{1F600}tail`);
    expect(straddling).toBe('a'.repeat(1022));
    const emoji = boundedUserAgent('\u{1F600}'.repeat(300));
    expect(emoji).toBe('\u{1F600}'.repeat(256));
    for (const cut of [straddling, emoji, boundedUserAgent(`é${'\u{1F600}'.repeat(300)}`)]) {
      expect(bytes(cut)).toBeLessThanOrEqual(1024);
      expect(cut.isWellFormed()).toBe(true);
    }
    // The limit applies after cleaning: a NUL becomes U+FFFD, three bytes.
    expect(bytes(boundedUserAgent('\u0000'.repeat(1000)))).toBe(1023);
  });
});
