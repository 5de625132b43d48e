import type { WebSocketConstructor } from './options.js';

/**
 * The global WebSocket when the runtime has one (browsers, Node ≥ 22), else the `ws` package. The import is
 * dynamic so browser bundles never include `ws`.
 */
export async function resolveWebSocket(given?: WebSocketConstructor): Promise<WebSocketConstructor> {
  if (given) return given;
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (typeof global === 'function') return global;
  const mod = (await import('ws')) as unknown as { WebSocket?: unknown; default?: unknown };
  return (mod.WebSocket ?? mod.default) as WebSocketConstructor;
}

/** Frame payload as text, whatever the implementation hands over (string, Buffer, ArrayBuffer). */
export function frameText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return String(data);
}
