import type { KeyValue } from '../../src/ports/keyvalue.js';

/** A KeyValue that delegates to `inner`, with pub/sub replaced where a test injects faults. */
export function wrapKv(inner: KeyValue, override: Pick<Partial<KeyValue>, 'publish' | 'subscribe'>): KeyValue {
  return {
    get: (k) => inner.get(k),
    set: (k, v, o) => inner.set(k, v, o),
    getdel: (k) => inner.getdel(k),
    del: (k) => inner.del(k),
    compareAndSet: (k, expected, v, o) => inner.compareAndSet(k, expected, v, o),
    incrWindow: (k, w) => inner.incrWindow(k, w),
    throttle: (k, limit, periodMs) => inner.throttle(k, limit, periodMs),
    health: () => inner.health(),
    close: () => inner.close(),
    publish: override.publish ?? ((channel, message) => inner.publish(channel, message)),
    subscribe: override.subscribe ?? ((channel, onMessage, onGap) => inner.subscribe(channel, onMessage, onGap)),
  };
}
