/** The parts of JSON Schema that RGD values schemas use (see the catalog's simple-schema translation). */
export interface JsonSchemaNode {
  type?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  items?: JsonSchemaNode;
  additionalProperties?: boolean | JsonSchemaNode;
  default?: unknown;
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
}

export interface FieldRow {
  /** Dotted path, as `--set` takes it. */
  path: string;
  type: string;
  default: string;
  required: boolean;
  description: string;
  schema: JsonSchemaNode;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const hasProperties = (s: JsonSchemaNode) => s.type === 'object' && isObject(s.properties) && Object.keys(s.properties).length > 0;
const escapeKey = (k: string) => k.replace(/\./g, '\\.');

function typeLabel(s: JsonSchemaNode): string {
  let label = s.type ?? 'any';
  if (s.type === 'array') label = `[]${s.items ? typeLabel(s.items) : 'any'}`;
  else if (s.type === 'object' && isObject(s.additionalProperties)) label = `map[string]${typeLabel(s.additionalProperties)}`;
  if (Array.isArray(s.enum)) label += ` (${s.enum.map(String).join('|')})`;
  return label;
}

const describeDefault = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Every leaf field of a values schema, depth first in declaration order. */
export function schemaFields(schema: JsonSchemaNode, prefix = ''): FieldRow[] {
  const rows: FieldRow[] = [];
  const required = new Set(schema.required ?? []);
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${escapeKey(key)}` : escapeKey(key);
    if (hasProperties(child)) rows.push(...schemaFields(child, path));
    else
      rows.push({
        path,
        type: typeLabel(child),
        default: describeDefault(child.default),
        required: required.has(key),
        description: child.description ?? '',
        schema: child,
      });
  }
  return rows;
}

/**
 * Required fields that `values` leaves out and that have no default, as prompts would ask them: an absent
 * required object counts as absent leaves; a present optional object is checked too.
 */
export function missingRequired(schema: JsonSchemaNode, values: unknown, prefix = ''): FieldRow[] {
  const missing: FieldRow[] = [];
  const given = isObject(values) ? values : {};
  const required = new Set(schema.required ?? []);
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${escapeKey(key)}` : escapeKey(key);
    const present = Object.prototype.hasOwnProperty.call(given, key) && given[key] !== undefined;
    if (hasProperties(child)) {
      if (present || required.has(key) || child.default !== undefined) {
        missing.push(...missingRequired(child, present ? given[key] : child.default ?? {}, path));
      }
      continue;
    }
    if (!present && required.has(key) && child.default === undefined) {
      missing.push({ path, type: typeLabel(child), default: '', required: true, description: child.description ?? '', schema: child });
    }
  }
  return missing;
}
