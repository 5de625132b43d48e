type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386 JSON merge patch: objects merge key by key, `null` removes a key, anything else replaces. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

const sameJson = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The merge patch that turns `from` into `to` (the inverse of applyMergePatch): keys that disappeared become
 * `null`, changed values are replaced, unchanged keys are left out. Used to send a validated full spec to the
 * cluster as a merge patch without resurrecting keys the client removed.
 */
export function mergePatchBetween(from: Json, to: Json): Json {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) if (!(key in to)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (!(key in from)) patch[key] = value;
    else if (!sameJson(from[key], value)) patch[key] = isObject(from[key]) && isObject(value) ? mergePatchBetween(from[key], value) : value;
  }
  return patch;
}
