/**
 * Freezes an object graph in place. Stops at parts already frozen: a new object version that shares unchanged
 * (frozen) parts with the previous one costs only its new parts.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Indexed and keyed loops rather than Object.values: no array per object, half the time on every instance
    // the index takes in (start-up, bursts). The graphs are JSON data: nothing enumerable is inherited.
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    else for (const key in value) deepFreeze(value[key]);
  }
  return value;
}
