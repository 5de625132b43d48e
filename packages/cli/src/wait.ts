import type { Instance } from '@portico/api';
import { PorticoApiError, type InstanceRef, type PorticoClient } from '@portico/client';
import { CliError, ExitCode } from './exit-codes.js';
import { describeRef } from './instance-ref.js';
import type { Io } from './io.js';
import { progressReporter } from './progress.js';

interface WaitOptions {
  timeoutMs: number;
  /** How often the instance is read in case an event was missed. */
  pollMs?: number;
}

const sameInstance = (ref: InstanceRef, e: { kind: string; name: string; namespace: string }) =>
  e.kind === ref.kind && e.name === ref.name && e.namespace === (ref.namespace ?? '');

const reasonOf = (i: Instance) => {
  const c = [...i.conditions, ...i.status.conditions].find((x) => x.status !== 'True' && x.message);
  return c?.message ? `: ${c.message}` : '';
};

/**
 * Waits until the instance is Healthy (resolves) or Unhealthy/Degraded (a failure, exit 4), showing
 * `deploy_progress` events as they come (the SDK's waitFor also reads the instance, for missed events).
 */
export async function waitForHealthy(io: Io, client: PorticoClient, ref: InstanceRef & { project: string }, opts: WaitOptions): Promise<Instance> {
  const label = describeRef(ref);
  const progress = progressReporter(io, label);
  let totalResources: number | undefined;
  try {
    const settled = await client.waitFor(ref, (i) => i.health === 'Healthy' || i.health === 'Unhealthy' || i.health === 'Degraded', {
      timeoutMs: opts.timeoutMs,
      pollMs: opts.pollMs,
      onProgress: (d) => {
        totalResources = d.totalResources;
        progress.update({ readyResources: d.readyResources, totalResources: d.totalResources, phase: d.phase, message: d.message });
      },
      onUpdate: (i) => {
        // The instance's own state wins over an older deploy_progress: the server may send the Healthy update
        // before the last progress event, and "Healthy 3/4 waiting for …" would read as a contradiction.
        const done = i.health === 'Healthy' && totalResources !== undefined;
        const ready = i.conditions.find((c) => c.type === 'Ready' && c.status === 'True');
        progress.update({
          health: i.health,
          ...(i.status.state ? { phase: i.status.state } : {}),
          ...(done ? { readyResources: totalResources, message: ready?.message } : {}),
        });
      },
    });
    if (settled.health !== 'Healthy') throw new CliError(`${label} is ${settled.health}${reasonOf(settled)}`, ExitCode.failure);
    return settled;
  } catch (e) {
    if (e instanceof PorticoApiError && e.code === 'TIMEOUT') {
      throw new CliError(`timed out after ${Math.round(opts.timeoutMs / 1000)}s waiting for ${label} to become Healthy`, ExitCode.failure);
    }
    if (e instanceof PorticoApiError && e.code === 'NOT_FOUND') throw new CliError(`${label} was deleted while waiting`, ExitCode.failure);
    throw e;
  } finally {
    progress.done();
  }
}

/** Waits until the instance is gone (404 or a delete event). */
export async function waitForDeletion(client: PorticoClient, ref: InstanceRef & { project?: string }, opts: WaitOptions): Promise<void> {
  const label = describeRef(ref);
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const sub = client.events.subscribe(
      { resourceType: 'instances', project: ref.project, namespace: ref.namespace || undefined, name: ref.name },
      {
        onEvent: (m) => {
          if (m.type === 'instance_update' && m.data.action === 'delete' && sameInstance(ref, m.data)) finish();
        },
      },
    );
    const poll = () =>
      client.instances.get(ref).then(
        () => undefined,
        (e: unknown) => {
          if (e instanceof PorticoApiError && e.status === 404) finish();
          else if (e instanceof PorticoApiError && e.status !== 0 && e.status < 500) finish(e);
        },
      );
    const pollTimer = setInterval(poll, opts.pollMs ?? 2000);
    const timeout = setTimeout(
      () => finish(new CliError(`timed out after ${Math.round(opts.timeoutMs / 1000)}s waiting for ${label} to be deleted`, ExitCode.failure)),
      opts.timeoutMs,
    );
    void poll();

    function finish(error?: Error) {
      if (settled) return;
      settled = true;
      clearInterval(pollTimer);
      clearTimeout(timeout);
      sub.close();
      if (error) reject(error);
      else resolve();
    }
  });
}
