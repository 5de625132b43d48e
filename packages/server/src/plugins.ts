import type { Readyz } from '@portico/api';
import type { Portico } from '@portico/core';
import type { RouteTable } from './http/router.js';
import type { ServerPlugin } from './plugin.js';

/** Each plugin's routes and handlers as one more route table. */
export const pluginRouteTables = (plugins: readonly ServerPlugin[]): RouteTable[] =>
  plugins.map((p) => ({ routes: p.routes ?? [], handlers: p.handlers ?? {}, gates: p.gates ?? {} }) as RouteTable);

/** The Portico the handlers see: `/readyz` also asks the plugins' components. */
export function pluginPortico(portico: Portico, plugins: readonly ServerPlugin[]): Portico {
  const checks = plugins.flatMap((p) => Object.entries(p.readiness ?? {}));
  if (checks.length === 0) return portico;
  return {
    ...portico,
    async readiness(): Promise<Readyz> {
      const [base, extra] = await Promise.all([
        portico.readiness(),
        Promise.all(checks.map(async ([name, check]) => [name, await check().catch((e: Error) => ({ ok: false, message: e.message }))] as const)),
      ]);
      const components = { ...base.components, ...Object.fromEntries(extra) };
      return { status: Object.values(components).every((c) => c.ok) ? 'ok' : 'unavailable', components };
    },
  };
}
