import type { Instance } from '@portico/api';
import { PorticoApiError, type InstanceRef, type PorticoClient } from '@portico/client';
import { CliError, ExitCode } from './exit-codes.js';
import { describeRef } from './instance-ref.js';
import type { Io } from './io.js';
import { progressReporter } from './progress.js';

export interface WaitOptions {
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
 * `deploy_progress` events as they come. Events can be missed between creation and subscription, so the
 * instance is also read now and then; either source ends the wait.
 */
export async function waitForHealthy(io: Io, client: PorticoClient, ref: InstanceRef & { project: string }, opts: WaitOptions): Promise<Instance> {
  const label = describeRef(ref);
  const progress = progressReporter(io, label);
  return new Promise<Instance>((resolve, reject) => {
    let settled = false;
    let totalResources: number | undefined;
    const sub = client.events.subscribe(
      { resourceType: 'instances', project: ref.project, namespace: ref.namespace || undefined, name: ref.name },
      {
        onEvent: (m) => {
          if (settled) return; // frames already in flight when the wait ended
          if (m.type === 'deploy_progress' && sameInstance(ref, m.data)) {
            totalResources = m.data.totalResources;
            progress.update({ readyResources: m.data.readyResources, totalResources: m.data.totalResources, phase: m.data.phase, message: m.data.message });
          } else if (m.type === 'instance_update' && sameInstance(ref, m.data)) {
            if (m.data.action === 'delete') return finish(new CliError(`${label} was deleted while waiting`, ExitCode.failure));
            judge(m.data.instance);
          }
        },
        onError: (e) => {
          if (e instanceof PorticoApiError && (e.status === 401 || e.status === 403)) finish(e);
        },
      },
    );
    const poll = () =>
      client.instances.get(ref).then(judge, (e: unknown) => {
        if (e instanceof PorticoApiError && e.status !== 0 && e.status < 500) finish(e);
      });
    const pollTimer = setInterval(poll, opts.pollMs ?? 5000);
    const timeout = setTimeout(
      () => finish(new CliError(`timed out after ${Math.round(opts.timeoutMs / 1000)}s waiting for ${label} to become Healthy`, ExitCode.failure)),
      opts.timeoutMs,
    );
    void poll();

    function judge(i: Instance) {
      // The instance's own state wins over an older deploy_progress: the server may send the Healthy update
      // before the last progress event, and "Healthy 3/4 waiting for …" would read as a contradiction.
      const done = i.health === 'Healthy' && totalResources !== undefined;
      const ready = i.conditions.find((c) => c.type === 'Ready' && c.status === 'True');
      progress.update({
        health: i.health,
        ...(i.status.state ? { phase: i.status.state } : {}),
        ...(done ? { readyResources: totalResources, message: ready?.message } : {}),
      });
      if (i.health === 'Healthy') finish(undefined, i);
      else if (i.health === 'Unhealthy' || i.health === 'Degraded') finish(new CliError(`${label} is ${i.health}${reasonOf(i)}`, ExitCode.failure));
    }

    function finish(error?: Error, instance?: Instance) {
      if (settled) return;
      settled = true;
      clearInterval(pollTimer);
      clearTimeout(timeout);
      sub.close();
      progress.done();
      if (error) reject(error);
      else resolve(instance!);
    }
  });
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
