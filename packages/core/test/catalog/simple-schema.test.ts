import { describe, expect, it } from 'vitest';
import { compileSimpleSchema, type JsonSchemaObject } from '../../src/catalog/index.js';

const port = { name: 'string', port: 'integer | required=true minimum=1 maximum=65535', protocol: 'string | default=TCP enum=TCP,UDP' };
const portSchema: JsonSchemaObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    protocol: { type: 'string', default: 'TCP', enum: ['TCP', 'UDP'] },
  },
  required: ['port'],
  additionalProperties: false,
  default: {},
};

/** One field's declaration → its JSON Schema (custom types: Port, Size). */
const fieldCases: Array<[string, string, JsonSchemaObject]> = [
  ['plain string', 'string', { type: 'string' }],
  ['integer with default and bounds', 'integer | default=3 minimum=1 maximum=10', { type: 'integer', default: 3, minimum: 1, maximum: 10 }],
  ['boolean default false', 'boolean | default=false', { type: 'boolean', default: false }],
  ['boolean default true', 'boolean | default=true', { type: 'boolean', default: true }],
  ['number with fractional default', 'number | default=0.5', { type: 'number', default: 0.5 }],
  ['float is a number', 'float | minimum=-1.5', { type: 'number', minimum: -1.5 }],
  ['string enum', 'string | enum=small,medium,large', { type: 'string', enum: ['small', 'medium', 'large'] }],
  ['quoted enum with spaces', 'string | enum="small, medium"', { type: 'string', enum: ['small', 'medium'] }],
  ['integer enum', 'integer | enum=1,2,3 default=2', { type: 'integer', enum: [1, 2, 3], default: 2 }],
  ['required with quoted description', 'string | required=true description="My name"', { type: 'string', description: 'My name' }],
  ['quoted values keep spaces and escaped quotes', 'string | default="hello world" description="say \\"hi\\" twice"', { type: 'string', default: 'hello world', description: 'say "hi" twice' }],
  ['quoted string default', 'string | default="x"', { type: 'string', default: 'x' }],
  ['unquoted string default', 'string | default=nginx:1.27', { type: 'string', default: 'nginx:1.27' }],
  ['numeric-looking string default stays a string', 'string | default="3"', { type: 'string', default: '3' }],
  ['empty string default', 'string | default=""', { type: 'string', default: '' }],
  ['pattern', 'string | pattern="^a"', { type: 'string', pattern: '^a' }],
  ['pattern containing a bar and backslashes', 'string | pattern="^(\\d+|auto)$"', { type: 'string', pattern: '^(\\d+|auto)$' }],
  ['length bounds', 'string | minLength=3 maxLength=63', { type: 'string', minLength: 3, maxLength: 63 }],
  ['immutable', 'string | immutable=true', { type: 'string', 'x-kubernetes-immutable': true }],
  ['immutable=false records nothing', 'string | immutable=false', { type: 'string' }],
  ['free-form object', 'object', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
  ['array of strings', '[]string', { type: 'array', items: { type: 'string' } }],
  ['array of integers with item markers', '[]integer | minItems=1 maxItems=5 uniqueItems=true', { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 5, uniqueItems: true }],
  ['array default as JSON', '[]string | default=["a", "b"]', { type: 'array', items: { type: 'string' }, default: ['a', 'b'] }],
  ['array of a custom type', '[]Port', { type: 'array', items: portSchema }],
  ['map of strings', 'map[string]string', { type: 'object', additionalProperties: { type: 'string' } }],
  ['map default as JSON', 'map[string]string | default={"team": "a b"}', { type: 'object', additionalProperties: { type: 'string' }, default: { team: 'a b' } }],
  ['map of a custom type', 'map[string]Port', { type: 'object', additionalProperties: portSchema }],
  ['map of arrays', 'map[string][]string', { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }],
  ['custom type used directly', 'Port', portSchema],
  ['custom alias type with its own markers', 'Size', { type: 'string', enum: ['s', 'm', 'l'], default: 'm' }],
  ['field markers on top of a custom alias', 'Size | default=l description="Size"', { type: 'string', enum: ['s', 'm', 'l'], default: 'l', description: 'Size' }],
  ['CEL validation is recorded', 'string | validation="self.startsWith(\'a\')"', { type: 'string', 'x-kubernetes-validations': [{ rule: "self.startsWith('a')", message: 'validation failed' }] }],
];

describe('compileSimpleSchema: field notation', () => {
  const types = { Port: port, Size: 'string | enum=s,m,l default=m' };
  it.each(fieldCases)('%s', (_name, declaration, expected) => {
    const schema = compileSimpleSchema({ field: declaration }, types);
    expect(schema.properties?.field).toEqual(expected);
  });
});

describe('compileSimpleSchema: structure', () => {
  it('produces a closed object with required fields in declaration order', () => {
    const schema = compileSimpleSchema({
      name: 'string | required=true',
      image: 'string | required=true',
      debug: 'boolean | required=false',
    });
    expect(schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, image: { type: 'string' }, debug: { type: 'boolean' } },
      required: ['name', 'image'],
      additionalProperties: false,
    });
  });

  it('turns nested mappings into closed objects with their own required lists', () => {
    const schema = compileSimpleSchema({ ingress: { host: 'string | required=true', path: 'string' } });
    expect(schema.properties?.ingress).toEqual({
      type: 'object',
      properties: { host: { type: 'string' }, path: { type: 'string' } },
      required: ['host'],
      additionalProperties: false,
    });
  });

  it('gives objects default {} when a child has a default, cascading upwards', () => {
    const schema = compileSimpleSchema({
      ingress: { enabled: 'boolean | default=false', tls: { issuer: 'string | default=letsencrypt' } },
      plain: { host: 'string' },
      deep: { deeper: { deepest: { leaf: 'integer | default=1' } } },
    });
    expect(schema.properties?.ingress.default).toEqual({});
    expect(schema.properties?.ingress.properties?.tls.default).toEqual({});
    expect(schema.properties?.plain).not.toHaveProperty('default');
    expect(schema.properties?.deep.default).toEqual({});
    expect(schema.properties?.deep.properties?.deeper.default).toEqual({});
  });

  it('lets custom types reference each other and marks fields of a required type as required', () => {
    const schema = compileSimpleSchema(
      { server: 'Server', endpoint: 'Endpoint' },
      { Endpoint: 'string | required=true pattern="^https://"', Server: { listen: '[]Port' }, Port: { port: 'integer' } },
    );
    expect(schema.required).toEqual(['endpoint']);
    expect(schema.properties?.server.properties?.listen.items).toEqual({
      type: 'object',
      properties: { port: { type: 'integer' } },
      additionalProperties: false,
    });
  });

  it('does not share schema objects between fields of the same custom type', () => {
    const schema = compileSimpleSchema({ a: 'Size | default=s', b: 'Size' }, { Size: 'string | enum=s,m' });
    expect(schema.properties?.a.default).toBe('s');
    expect(schema.properties?.b).not.toHaveProperty('default');
  });

  it('compiles an absent spec to an empty closed object', () => {
    expect(compileSimpleSchema(undefined)).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });
});

describe('compileSimpleSchema: invalid notation names the field', () => {
  const cases: Array<[string, unknown, RegExp, Record<string, unknown>?]> = [
    ['unknown type', { replicas: 'integr' }, /^spec\.replicas: unknown type "integr"/],
    ['unknown element type', { ports: '[]Prot' }, /^spec\.ports: unknown type "Prot"/],
    ['array without element type', { ports: '[]' }, /^spec\.ports: .*no element type/],
    ['non-string map key', { m: 'map[integer]string' }, /^spec\.m: map keys must be string/],
    ['malformed map', { m: 'map[string' }, /^spec\.m: malformed map type/],
    ['integer default not a number', { replicas: 'integer | default=abc' }, /^spec\.replicas: default must be an integer/],
    ['fractional integer default', { replicas: 'integer | default=1.5' }, /^spec\.replicas: default must be an integer/],
    ['boolean default not a boolean', { on: 'boolean | default=maybe' }, /^spec\.on: default must be true or false/],
    ['required not a boolean', { name: 'string | required=yes' }, /^spec\.name: required must be true or false/],
    ['unknown marker', { name: 'string | colour=red' }, /^spec\.name: unknown marker "colour"/],
    ['unclosed quote', { name: 'string | description="unclosed' }, /^spec\.name: unclosed quote/],
    ['marker without value', { name: 'string | required' }, /^spec\.name: marker "required" has no value/],
    ['marker on a type it does not fit', { name: 'string | minimum=1' }, /^spec\.name: minimum does not apply to type string/],
    ['integer enum with words', { n: 'integer | enum=a,b' }, /^spec\.n: enum must be an integer/],
    ['empty enum value', { size: 'string | enum=a,,b' }, /^spec\.size: enum values must not be empty/],
    ['invalid pattern', { name: 'string | pattern="("' }, /^spec\.name: invalid pattern/],
    ['default outside the enum', { size: 'string | enum=a,b default=c' }, /^spec\.size: default "c" is not one of the enum values/],
    ['default below minimum', { n: 'integer | minimum=1 default=0' }, /^spec\.n: default 0 is below minimum 1/],
    ['array default that is not an array', { tags: '[]string | default={"a":1}' }, /^spec\.tags: default .* is not of type array/],
    ['object default that is not JSON', { labels: 'map[string]string | default=team' }, /^spec\.labels: default must be JSON/],
    ['error inside a nested mapping', { ingress: { tls: { issuer: 'strin' } } }, /^spec\.ingress\.tls\.issuer: unknown type "strin"/],
    ['a number instead of a type', { replicas: 3 }, /^spec\.replicas: expected a type string or a mapping of fields, got number/],
    ['an empty field', { replicas: null }, /^spec\.replicas: expected a type string or a mapping of fields, got nothing/],
    ['a prototype key as field name', JSON.parse('{"__proto__": "string"}'), /^spec\.__proto__: invalid field name/],
    ['circular custom types', { a: 'A' }, /circular type reference A -> B -> A/, { A: { b: 'B' }, B: { a: 'A' } }],
    ['broken custom type, even unused', { a: 'string' }, /^types\.T\.x: unknown type "nope"/, { T: { x: 'nope' } }],
    ['spec that is not a mapping', ['string'], /^spec: must be a mapping of fields/],
  ];
  it.each(cases)('%s', (_name, spec, message, types) => {
    expect(() => compileSimpleSchema(spec, types)).toThrow(message);
  });
});
