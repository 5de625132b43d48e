/**
 * Freezes an object graph in place. Stops at parts already frozen: a new object version that shares unchanged
 * (frozen) parts with the previous one costs only its new parts.
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
