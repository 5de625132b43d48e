import Ajv, { type ValidateFunction } from 'ajv';

// Same settings as the server's check, so what passes here passes there: strict off because compiled
// schemas carry Kubernetes `x-` keywords; no defaults filled in, the user's text is sent as they wrote it.
const ajv = new Ajv({ allErrors: true, strict: false });

/** `spec.replicas: must be integer` lines for every problem of `spec` against the RGD's values schema. */
export function specProblems(schema: object, spec: unknown): string[] {
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch {
    return []; // a schema the CLI cannot compile is left to the server to judge
  }
  if (validate(spec)) return [];
  return (validate.errors ?? []).map((e) => {
    const path = `spec${e.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.')}`;
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
    const missing = e.keyword === 'required' ? `.${String((e.params as { missingProperty?: string }).missingProperty)}` : '';
    return `${path}${missing}: ${e.message ?? 'is invalid'}${extra}`;
  });
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The JSON merge patch (RFC 7386) turning `from` into `to`: changed keys with their new value, removed keys
 * as null, objects compared key by key, anything else replaced whole.
 */
export function mergePatchBetween(from: Json, to: Json): Json {
  const patch: Json = {};
  for (const key of Object.keys(from)) if (!(key in to)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    const before = from[key];
    if (isObject(before) && isObject(value)) {
      const inner = mergePatchBetween(before, value);
      if (Object.keys(inner).length) patch[key] = inner;
    } else if (JSON.stringify(before) !== JSON.stringify(value)) patch[key] = value;
  }
  return patch;
}
