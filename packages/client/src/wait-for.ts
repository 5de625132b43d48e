import type { DeployProgress, Health, Instance } from '@portico/api';
import { PorticoApiError } from './errors.js';
import type { EventsApi } from './events.js';
import type { InstanceRef, InstancesApi } from './resources/instances.js';
import { abortedError } from './sleep.js';

/** A health to reach (`'Healthy'`), or any test of the instance. */
export type WaitCondition = Health | ((instance: Instance) => boolean);

export interface WaitForOptions {
  /** Give up with a `TIMEOUT` error after this long. Default 5 minutes. */
  timeoutMs?: number;
  /** How often the instance is read too, in case an event was missed. Default 5 000 ms. */
  pollMs?: number;
  signal?: AbortSignal;
  /** Each `deploy_progress` event of the instance (ready resources, phase). */
  onProgress?: (progress: DeployProgress) => void;
  /** Each state of the instance seen, from an event or a read, before the condition is judged. */
  onUpdate?: (instance: Instance) => void;
}

/** An instance to watch: a ref, or the instance itself (its project narrows the event subscription). */
export type WaitTarget = InstanceRef & { project?: string };

const sameInstance = (ref: InstanceRef, e: { kind: string; name: string; namespace: string }) =>
  e.kind === ref.kind && e.name === ref.name && e.namespace === (ref.namespace ?? '');

const describe = (ref: InstanceRef) => `${ref.kind}/${ref.name}${ref.namespace ? ` in ${ref.namespace}` : ''}`;

/**
 * Resolves with the instance once `condition` holds. It listens to the instance's events and also reads the
 * instance now and then, because events sent before the subscription was open are never replayed; either
 * source ends the wait. Rejects with `TIMEOUT`, `ABORTED`, `NOT_FOUND` (deleted while waiting) or any
 * 4xx the server answered (401 and 403 included).
 */
export function waitForInstance(
  api: { instances: Pick<InstancesApi, 'get'>; events: EventsApi },
  target: WaitTarget,
  condition: WaitCondition,
  opts: WaitForOptions = {},
): Promise<Instance> {
  const ref: InstanceRef = { kind: target.kind, name: target.name, namespace: target.namespace || undefined };
  const holds = typeof condition === 'function' ? condition : (i: Instance) => i.health === condition;
  const timeoutMs = opts.timeoutMs ?? 300_000;
  return new Promise<Instance>((resolve, reject) => {
    if (opts.signal?.aborted) return reject(abortedError(opts.signal.reason));
    let settled = false;
    const sub = api.events.subscribe(
      { resourceType: 'instances', project: target.project, namespace: ref.namespace, name: ref.name },
      {
        onError: (e) => {
          if (e instanceof PorticoApiError && (e.status === 401 || e.status === 403)) finish(e);
        },
      },
    );
    const judge = (i: Instance) => {
      if (settled) return;
      opts.onUpdate?.(i);
      if (holds(i)) finish(undefined, i);
    };
    const poll = () =>
      api.instances.get(ref).then(judge, (e: unknown) => {
        if (e instanceof PorticoApiError && e.status !== 0 && e.status < 500 && e.status !== 429) finish(e);
      });
    const pollTimer = setInterval(poll, opts.pollMs ?? 5000);
    const timer = setTimeout(
      () => finish(new PorticoApiError({ status: 0, code: 'TIMEOUT', message: `timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${describe(ref)}` })),
      timeoutMs,
    );
    const onAbort = () => finish(abortedError(opts.signal?.reason));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    void poll();
    void (async () => {
      try {
        for await (const m of sub) {
          if (m.type === 'deploy_progress' && sameInstance(ref, m.data)) opts.onProgress?.(m.data);
          else if (m.type === 'instance_update' && sameInstance(ref, m.data)) {
            if (m.data.action === 'delete') finish(new PorticoApiError({ status: 404, code: 'NOT_FOUND', message: `${describe(ref)} was deleted while waiting` }));
            else judge(m.data.instance);
          }
        }
      } catch (e) {
        finish(e as Error);
      }
    })();

    function finish(error?: Error, instance?: Instance) {
      if (settled) return;
      settled = true;
      clearInterval(pollTimer);
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      sub.close();
      if (error) reject(error);
      else resolve(instance!);
    }
  });
}
