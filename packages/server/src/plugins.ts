import { rbacResourceRow, registerRbacResources, type Readyz } from '@portico/api';
import type { Portico } from '@portico/core';
import type { RouteTable } from './http/router.js';
import type { OperationHook, PorticoPlugin } from './plugin.js';

/** Each plugin's routes and handlers as one more route table. */
export const pluginRouteTables = (plugins: readonly PorticoPlugin[]): RouteTable[] =>
  plugins.map((p) => ({ routes: p.routes ?? [], handlers: p.handlers ?? {} }) as RouteTable);

/**
 * Adds the plugins' rows to the RBAC vocabulary, in place of the placeholders the OSS table keeps for the
 * field's resources. The vocabulary is process-wide and rows are data: a served row already there (a second
 * server of the same edition in one process) is left as it is.
 */
export function registerPluginRbacRows(plugins: readonly PorticoPlugin[]): void {
  const missing = plugins.flatMap((p) => p.rbacResources ?? []).filter((row) => {
    const existing = rbacResourceRow(row.resource);
    return !existing || existing.placeholder === true;
  });
  if (missing.length > 0) registerRbacResources(missing);
}

/** The hooks of every plugin, nested in order: the first plugin's hook is the outermost. */
export function pluginsOperationHook(plugins: readonly PorticoPlugin[]): OperationHook | undefined {
  const hooks = plugins.flatMap((p) => (p.onOperation ? [p.onOperation] : []));
  if (hooks.length === 0) return undefined;
  return hooks.reduceRight<OperationHook>((inner, hook) => (operation, run) => hook(operation, () => inner(operation, run)), (_operation, run) => run());
}

/** The Portico the handlers see: `/readyz` also asks the plugins' components. */
export function pluginPortico(portico: Portico, plugins: readonly PorticoPlugin[]): Portico {
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

/** The event streams of every plugin, for `attachWebSocket`'s `streams`. */
export const pluginEventStreams = (plugins: readonly PorticoPlugin[]) => plugins.flatMap((p) => p.eventStreams ?? []);
