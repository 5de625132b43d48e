import type { Instance } from '@portico/api';
import type { InstanceRef, PorticoClient } from '@portico/client';
import { CliError, ExitCode, usageError } from './exit-codes.js';

export const describeRef = (ref: InstanceRef) => `${ref.kind}/${ref.name}${ref.namespace ? ` in ${ref.namespace}` : ''}`;

/**
 * KIND NAME with or without -n: with it, that instance; without it, the one instance of that kind and name
 * the caller can see (cluster-scoped or in any namespace), so `portico instance get Postgres db` just works.
 */
export async function resolveInstanceRef(client: PorticoClient, kind: string, name: string, namespace?: string): Promise<InstanceRef> {
  if (namespace) return { kind, name, namespace };
  const found: Instance[] = [];
  for await (const i of client.instances.all({ kind, search: name, pageSize: 500 })) if (i.name === name && i.kind === kind) found.push(i);
  if (found.length === 0) throw new CliError(`instance ${kind}/${name} not found`, ExitCode.no);
  if (found.length > 1) {
    throw usageError(`${kind}/${name} exists in namespaces ${found.map((i) => i.namespace || '(cluster)').join(', ')}: pass -n NAMESPACE`);
  }
  return { kind, name, namespace: found[0].namespace };
}
