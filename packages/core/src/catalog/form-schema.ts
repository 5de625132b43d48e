import type * as api from '@portico/api';
import type { CatalogEntry, JsonSchemaObject } from './types.js';

/**
 * A JSON Schema node → a deploy-form field. Objects keep their fields in declaration order (`propertyOrder`):
 * the compiled schema is built by walking the simple schema in order, and JSON object keys that are field
 * names (never integer-like) keep insertion order.
 */
function toFormProperty(schema: JsonSchemaObject): api.FormProperty {
  const preservesUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const property: api.FormProperty = { type: schema.type ?? 'object' };
  if (schema.description !== undefined) property.description = schema.description;
  if (schema.default !== undefined) property.default = structuredClone(schema.default);
  if (schema.enum !== undefined) property.enum = [...schema.enum];
  if (schema.minimum !== undefined) property.minimum = schema.minimum;
  if (schema.maximum !== undefined) property.maximum = schema.maximum;
  if (schema.pattern !== undefined) property.pattern = schema.pattern;
  if (typeof schema.format === 'string') property.format = schema.format;
  if (schema.items) property.items = toFormProperty(schema.items);
  if (schema.properties) {
    const order = Object.keys(schema.properties);
    property.properties = Object.fromEntries(order.map((key) => [key, toFormProperty(schema.properties![key])]));
    property.required = [...(schema.required ?? [])];
    property.propertyOrder = order;
  }
  if (preservesUnknown) property.additionalProperties = true;
  else if (typeof schema.additionalProperties === 'boolean') property.additionalProperties = schema.additionalProperties;
  else if (schema.additionalProperties) property.additionalProperties = toFormProperty(schema.additionalProperties);
  return property;
}

/** Form fields are derived once per compiled schema, and a compiled schema exists once per RGD revision. */
const built = new WeakMap<JsonSchemaObject, Pick<api.FormSchema, 'properties' | 'required' | 'propertyOrder'>>();

/**
 * The author's `<prefix>/property-order` first (fields the schema has), then the rest in declaration order: a
 * form can lead with what matters without the simple schema being rewritten.
 */
function orderedBy(declared: string[], wanted: string[] | undefined): string[] {
  if (!wanted) return declared;
  const first = wanted.filter((field) => declared.includes(field));
  return [...first, ...declared.filter((field) => !first.includes(field))];
}

/** The FormSchema of contract §11: the instance spec's fields with the entry's identity around them. */
export function formSchemaOf(entry: CatalogEntry, schema: JsonSchemaObject): api.FormSchema {
  let fields = built.get(schema);
  if (!fields) {
    const root = toFormProperty(schema);
    fields = { properties: root.properties ?? {}, required: root.required ?? [], propertyOrder: root.propertyOrder ?? [] };
    built.set(schema, fields);
  }
  return {
    name: entry.name,
    namespace: '',
    group: entry.group,
    version: entry.version,
    kind: entry.kind,
    isClusterScoped: entry.isClusterScoped,
    description: entry.description,
    ...fields,
    propertyOrder: orderedBy(fields.propertyOrder, entry.propertyOrder),
  };
}
