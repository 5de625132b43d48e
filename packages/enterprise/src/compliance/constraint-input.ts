import type * as api from '@portico/api/enterprise';
import { validateValues, validationFailed, type KubeObject } from '@portico/core';
import { parametersSchemaOf } from './gatekeeper.js';
import { matchedKindKeys } from './match.js';

/** Namespaces a constraint may not be confined to or match through a wildcard: the cluster's own and Gatekeeper's. */
export const systemNamespaces = ['kube-system', 'kube-public', 'kube-node-lease', 'gatekeeper-system'];

/**
 * Every reason a new constraint is refused, keyed by JSON path: a match on `*` or a system namespace, a match
 * on every kind (no kinds, or a `*` kind), and parameters that break the template's schema.
 */
export function constraintFieldErrors(body: api.CreateConstraintRequest, template: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {};
  const match = body.match;
  if (!match || matchedKindKeys(match).length === 0) fields['match.kinds'] = 'must name the kinds the constraint applies to (a match on all kinds is not allowed)';
  else {
    match.kinds.forEach((k, i) => {
      if (k.kinds.length === 0 || k.kinds.includes('*')) fields[`match.kinds.${i}.kinds`] = 'must name kinds, not all kinds ("*")';
    });
  }
  match?.namespaces.forEach((ns, i) => {
    if (ns === '*' || ns.endsWith('*')) fields[`match.namespaces.${i}`] = 'must be a namespace name, not a wildcard';
    else if (systemNamespaces.includes(ns)) fields[`match.namespaces.${i}`] = `must not be a system namespace (${systemNamespaces.join(', ')})`;
  });
  const schema = parametersSchemaOf(template);
  if (Object.keys(schema).length > 0) {
    let result: ReturnType<typeof validateValues>;
    try {
      result = validateValues({ type: 'object', ...schema } as never, body.parameters ?? {});
    } catch {
      result = { ok: true, value: {} } as never; // a schema Portico cannot compile is Gatekeeper's to enforce
    }
    if (!result.ok) for (const [path, message] of Object.entries(result.fields)) fields[path.replace(/^spec/, 'parameters')] = message;
  }
  return fields;
}

export function assertConstraintInput(body: api.CreateConstraintRequest, template: KubeObject): void {
  const fields = constraintFieldErrors(body, template);
  const keys = Object.keys(fields);
  if (keys.length > 0) throw validationFailed(fields, `invalid constraint: ${keys.map((k) => `"${k}"`).join(', ')}`);
}
