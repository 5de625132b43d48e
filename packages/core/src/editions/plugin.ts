import type { OperationDefinition, RbacResourceRow } from '@portico/api';
import type { OperationHook } from '../operations/operation.js';

/**
 * What an edition module gives `createPortico` before anything starts (the plugin interface of core): rows of
 * the RBAC vocabulary, the operations it performs, and hooks around every operation (the audit trail). What it
 * serves over HTTP (routes, handlers, readiness, event streams) is the server's extension of this interface.
 */
export interface PorticoPlugin {
  name: string;
  /** Rows of the RBAC vocabulary (can-i, policies, docs); a row may take the place of a placeholder of the field's. */
  rbacResources?: readonly RbacResourceRow[];
  /** The plugin's operations (action and resource by id), which its route rows name and its services run. */
  operations?: Readonly<Record<string, OperationDefinition>>;
  /** Wrap every operation of this Portico, core's and every plugin's, in plugin order (the first is outermost). */
  hooks?: readonly OperationHook[];
}
