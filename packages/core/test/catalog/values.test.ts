import { describe, expect, it } from 'vitest';
import { compileSimpleSchema, validateValues } from '../../src/catalog/index.js';

const schema = compileSimpleSchema(
  {
    name: 'string | required=true pattern="^[a-z][a-z0-9-]*$"',
    replicas: 'integer | default=2 minimum=1 maximum=10',
    size: 'string | enum=small,medium,large default=small',
    image: 'string | default="nginx:1.27"',
    ingress: {
      enabled: 'boolean | default=false',
      host: 'string',
      tls: { issuer: 'string | default=letsencrypt' },
    },
    ports: '[]Port',
    labels: 'map[string]string',
    weights: 'map[string]integer',
    extra: 'object',
  },
  { Port: { port: 'integer | required=true', protocol: 'string | default=TCP enum=TCP,UDP' } },
);

describe('validateValues', () => {
  it('applies defaults deep, including inside omitted objects and array items', () => {
    const result = validateValues(schema, { name: 'shop', ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] });
    expect(result).toEqual({
      ok: true,
      value: {
        name: 'shop',
        replicas: 2,
        size: 'small',
        image: 'nginx:1.27',
        ingress: { enabled: false, tls: { issuer: 'letsencrypt' } },
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 53, protocol: 'UDP' },
        ],
      },
    });
  });

  it('keeps given values over defaults and never modifies the caller object', () => {
    const values = { name: 'shop', replicas: 5, ingress: { host: 'shop.example.com' } };
    const snapshot = structuredClone(values);
    const result = validateValues(schema, values);
    expect(result.ok && result.value.replicas).toBe(5);
    expect(result.ok && result.value.ingress).toEqual({ host: 'shop.example.com', enabled: false, tls: { issuer: 'letsencrypt' } });
    expect(values).toEqual(snapshot);
  });

  it('lists every bad field with a readable message, not only the first', () => {
    const result = validateValues(schema, {
      replicas: '3',
      size: 'huge',
      ingress: { host: 5, colour: 'blue' },
      ports: [{ port: 80 }, { port: 'x' }, { protocol: 'TCP' }],
      weights: { 'app.kubernetes.io/tier': 'high' },
      surprise: true,
    });
    expect(result).toEqual({
      ok: false,
      fields: {
        'spec.name': 'is required',
        'spec.replicas': 'must be integer',
        'spec.size': 'must be one of: small, medium, large',
        'spec.ingress.host': 'must be string',
        'spec.ingress.colour': 'unknown field',
        'spec.ports[1].port': 'must be integer',
        'spec.ports[2].port': 'is required',
        'spec.weights["app.kubernetes.io/tier"]': 'must be integer',
        'spec.surprise': 'unknown field',
      },
    });
  });

  it('reports bounds and patterns', () => {
    const result = validateValues(schema, { name: 'Bad Name', replicas: 0 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.fields).sort()).toEqual(['spec.name', 'spec.replicas']);
    expect(result.fields['spec.replicas']).toMatch(/>= 1/);
    expect(result.fields['spec.name']).toMatch(/pattern/);
  });

  it('does not coerce types', () => {
    const result = validateValues(schema, { name: 'shop', ingress: { enabled: 'true' } });
    expect(result).toEqual({ ok: false, fields: { 'spec.ingress.enabled': 'must be boolean' } });
  });

  it('accepts anything inside a free-form object', () => {
    const result = validateValues(schema, { name: 'shop', extra: { any: { nested: [1, 'two'] } } });
    expect(result.ok).toBe(true);
  });

  it('rejects prototype-pollution keys anywhere as field errors', () => {
    const values = JSON.parse('{"name":"shop","__proto__":{"polluted":true},"extra":{"a":{"constructor":{"prototype":{"x":1}}}},"labels":{"prototype":"p"}}');
    const result = validateValues(schema, values);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.fields).toEqual({
      'spec.__proto__': 'is not an allowed field name',
      'spec.extra.a.constructor': 'is not an allowed field name',
      'spec.labels.prototype': 'is not an allowed field name',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects values that are not an object', () => {
    expect(validateValues(schema, ['a'])).toEqual({ ok: false, fields: { spec: 'must be object' } });
    expect(validateValues(schema, null)).toEqual({ ok: false, fields: { spec: 'must be object' } });
  });

  it('stops at absurd nesting instead of overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const result = validateValues(schema, { name: 'shop', extra: deep });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.values(result.fields)).toContain('is nested too deeply');
  });

  it('gives every call its own default objects', () => {
    const first = validateValues(schema, { name: 'a' });
    if (!first.ok) throw new Error('expected valid');
    (first.value.ingress as { tls: { issuer: string } }).tls.issuer = 'changed';
    const second = validateValues(schema, { name: 'b' });
    expect(second.ok && second.value.ingress).toEqual({ enabled: false, tls: { issuer: 'letsencrypt' } });
  });
});
