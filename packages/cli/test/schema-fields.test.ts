import { describe, expect, it } from 'vitest';
import { missingRequired, schemaFields, type JsonSchemaNode } from '../src/index.js';

const schema: JsonSchemaNode = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'database name' },
    size: { type: 'integer', default: 1, minimum: 1 },
    tier: { type: 'string', enum: ['small', 'large'] },
    storage: {
      type: 'object',
      properties: { class: { type: 'string' }, gi: { type: 'integer', default: 10 } },
      required: ['class'],
      default: {},
    },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    ports: { type: 'array', items: { type: 'integer' } },
  },
  required: ['name', 'tier', 'size'],
};

describe('schemaFields', () => {
  it('lists every leaf with path, type, default, required and description', () => {
    const rows = schemaFields(schema).map(({ schema: _s, ...r }) => r);
    expect(rows).toEqual([
      { path: 'name', type: 'string', default: '', required: true, description: 'database name' },
      { path: 'size', type: 'integer', default: '1', required: true, description: '' },
      { path: 'tier', type: 'string (small|large)', default: '', required: true, description: '' },
      { path: 'storage.class', type: 'string', default: '', required: true, description: '' },
      { path: 'storage.gi', type: 'integer', default: '10', required: false, description: '' },
      { path: 'labels', type: 'map[string]string', default: '', required: false, description: '' },
      { path: 'ports', type: '[]integer', default: '', required: false, description: '' },
    ]);
  });
});

describe('missingRequired', () => {
  it('names required fields without a default that the values leave out', () => {
    expect(missingRequired(schema, {}).map((f) => f.path)).toEqual(['name', 'tier', 'storage.class']);
    expect(missingRequired(schema, { name: 'db', tier: 'small', storage: { class: 'fast' } })).toEqual([]);
  });
});
