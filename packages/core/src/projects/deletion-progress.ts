import type * as api from '@portico/api';
import type { IndexedInstance } from '../instances/index-types.js';
import type { Disposable } from '../ports/cluster.js';
import type { EventsService } from '../types.js';

/** How long a cascade waits for its last progress frame to reach this process's sockets before going on. */
const deliveryWaitMs = 2_000;

type Step = Pick<api.DeployProgress, 'phase' | 'readyResources' | 'totalResources' | 'message'>;

export interface DeletionProgress extends Disposable {
  /** One step of one instance's deletion, as `deploy_progress` to those who may see the instance (contract §7). */
  report(item: IndexedInstance, step: Step): Promise<void>;
  /**
   * Resolves once the last reported step has come back through the event bus to this process (its sockets have
   * been given it), or after a short while. Who may see a frame is decided when it is delivered: once the project
   * is gone its members may no longer see its instances, so the project is removed only after this.
   */
  delivered(): Promise<void>;
}

const keyOf = (d: Pick<api.DeployProgress, 'instanceId' | 'phase' | 'message'>) => `${d.instanceId}\n${d.phase}\n${d.message}`;

export function createDeletionProgress(events: EventsService): DeletionProgress {
  let last: string | undefined;
  let seen: string | undefined;
  let wake: (() => void) | undefined;
  const subscription = events.onEvent((event) => {
    if (event.type !== 'deploy_progress') return;
    seen = keyOf(event.data as api.DeployProgress);
    if (seen === last) wake?.();
  });

  return {
    async report(item, step) {
      const data: api.DeployProgress = {
        instanceId: item.id,
        project: item.project,
        namespace: item.instance.namespace,
        kind: item.instance.kind,
        name: item.instance.name,
        ...step,
      };
      last = keyOf(data);
      await events.publish({ type: 'deploy_progress', object: item.rbacObject, project: item.project, namespace: item.instance.namespace, name: item.instance.name, data });
    },

    delivered() {
      if (last === undefined || seen === last) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, deliveryWaitMs);
        timer.unref?.();
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    },

    close: () => subscription.close(),
  };
}
