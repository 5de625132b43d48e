/**
 * The bodies of the `${...}` CEL expressions in a string. Braces nest (CEL map literals) and quoted strings may
 * contain braces, so this is a small scanner rather than a regular expression.
 */
export function expressionsIn(text: string): string[] {
  const found: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf('${', from);
    if (start < 0) return found;
    let depth = 1;
    let quote = '';
    let i = start + 2;
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '{') depth++;
      else if (c === '}') depth--;
    }
    if (depth > 0) return found; // unterminated: not an expression
    found.push(text.slice(start + 2, i - 1));
    from = i;
  }
}

/** Every string inside a YAML/JSON value, depth first. */
function* stringsIn(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* stringsIn(v);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) yield* stringsIn(v);
}

// An identifier that starts a member access (`database.status`), not one in the middle of a path (`.status.`).
const rootIdentifier = /(?<![\w.$])([A-Za-z_][A-Za-z0-9_]*)\s*\./g;

/** An expression with its string literals emptied, so `"a.b"` is not read as a member access. */
export const withoutStringLiterals = (expr: string) => expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');

/** Identifiers that root a member access in any `${...}` expression of `value`. */
export function referencedRoots(value: unknown): Set<string> {
  const roots = new Set<string>();
  for (const text of stringsIn(value)) {
    for (const expr of expressionsIn(text)) {
      for (const m of withoutStringLiterals(expr).matchAll(rootIdentifier)) roots.add(m[1]);
    }
  }
  return roots;
}

interface RawResource {
  id?: unknown;
  template?: { kind?: unknown };
  externalRef?: { kind?: unknown };
  readyWhen?: unknown;
  includeWhen?: unknown;
  forEach?: unknown;
}

/** One entry of `spec.resources[]`, reduced to what the catalog shows: its id, kind and the ids it reads from. */
export interface CatalogResource {
  id: string;
  kind?: string;
  dependsOn: string[];
}

/**
 * `spec.resources[]` → `{id, kind, dependsOn}`: a resource depends on every other resource whose id roots an
 * expression in its template (or externalRef), readyWhen, includeWhen or forEach. `schema` is the instance, not a
 * resource. dependsOn follows the order of `spec.resources`.
 */
export function resourceGraph(resources: unknown): CatalogResource[] {
  if (!Array.isArray(resources)) return [];
  const raw = resources.filter((r): r is RawResource => !!r && typeof r === 'object' && typeof (r as RawResource).id === 'string');
  const ids = [...new Set(raw.map((r) => r.id as string))];
  return raw.map((r) => {
    const id = r.id as string;
    const roots = referencedRoots([r.template, r.externalRef, r.readyWhen, r.includeWhen, r.forEach]);
    const kind = r.template?.kind ?? r.externalRef?.kind;
    return {
      id,
      ...(typeof kind === 'string' ? { kind } : {}),
      dependsOn: ids.filter((other) => other !== id && roots.has(other)),
    };
  });
}
