/**
 * Sets `key` in a map that holds at most `max` entries, the oldest insertion going first (Map keeps insertion
 * order, so its first key is the oldest). The one eviction rule of core's caches; a cache that wants "least
 * recently used" re-inserts an entry when it is read. Answers `value`.
 */
export function setBounded<K, V>(map: Map<K, V>, max: number, key: K, value: V): V {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}
