import { parse } from 'yaml';
import { isPorticoError } from '../errors.js';
import { deepEqual } from '../json-equal.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable, KubeObject } from '../ports/cluster.js';
import type { GitDeployments, GitPlacement } from '../repositories/index.js';
import { gitAnnotations } from './git-fields.js';
import type { IndexedInstance, InstanceIndex } from './index-types.js';
import type { InstanceKey } from './instance-key.js';
import { keyOf } from './instance-resource.js';

export interface DriftDeps {
  index: InstanceIndex;
  cluster: Cluster;
  git: GitDeployments;
  /** Where an instance lives (its labels, or the development default); throws when it cannot say. */
  placementOf(object: KubeObject, project: string, key: InstanceKey): GitPlacement;
  /** How often every Git-mode instance is compared again, changed or not (someone may have pushed to Git). */
  intervalMs: number;
  /**
   * Takes the periodic sweep of one period for this replica (a key set only if absent in the store replicas
   * share): the sweep reads every Git-mode instance's file, and one replica doing it per period is enough, since
   * its verdicts are written on the objects every replica reads. Absent: this replica sweeps every period.
   */
  claimSweep?(period: string, ttlMs: number): Promise<boolean>;
  /** The object matches the commit that last changed its file (each replica may say so; the history keeps one). */
  onSynced?(item: IndexedInstance, commit: string): void;
  logger: Logger;
  now?: () => Date;
}

/** How fresh a branch fetched for an earlier comparison may be to serve the next one (a sweep fetches each branch once). */
const fetchedWithinMs = 2_000;
/** A Portico write between its cluster step and its push is not drift; one that never finished (a crash) is, after this. */
const pendingForMs = 5 * 60_000;
/** Comparisons running at once on this replica (each may fetch). */
const parallel = 4;

const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The spec of a manifest file, or undefined when the file holds no mapping with a spec mapping. */
function specOfManifest(text: string): Record<string, unknown> | undefined {
  try {
    const doc = parse(text) as { spec?: unknown } | null;
    const spec = doc?.spec;
    return spec && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>) : {};
  } catch {
    return undefined;
  }
}

/**
 * §13 drift: for every Git-mode instance in the cluster, the live `spec` compared with the spec of its file on its
 * branch, on every change of the object and every `intervalMs`. The verdict is written on the object itself
 * (annotations `gitops-drift`, `drifted-at`, `desired-spec`, and the file's last commit as `git-commit`), so every
 * replica answers the same and the change travels as any instance change does (`drift_update` to the instance's
 * audience, see instance-events). Replicas that reach the same verdict write it once: the write is guarded by the
 * version compared, and a verdict already on the object is not written again.
 */
export interface DriftWatch extends Disposable {
  /** Compares every Git-mode instance now (after a start, before the first period ends). */
  sweep(): void;
}

export function watchDrift(deps: DriftDeps): DriftWatch {
  const log = deps.logger.child({ module: 'drift' });
  const now = deps.now ?? (() => new Date());
  const waiting = new Map<string, IndexedInstance>();
  /** Commits this replica has reported in sync, per object: said once, not every period. */
  const reported = new Set<string>();
  const syncedOnce = (item: IndexedInstance, commit: string) => {
    const id = `${item.object.metadata.uid}:${commit}`;
    if (reported.has(id)) return;
    if (reported.size > 10_000) reported.clear();
    reported.add(id);
    deps.onSynced?.(item, commit);
  };
  const running = new Set<string>();
  let closed = false;

  const isGitMode = (item: IndexedInstance) => item.instance.deploymentMode !== 'direct' && item.project !== '';

  const pending = (object: KubeObject) => {
    const since = Date.parse(object.metadata.annotations?.[gitAnnotations.pending] ?? '');
    return !Number.isNaN(since) && now().getTime() - since < pendingForMs;
  };

  /** What a comparison with Git depends on: the spec (its generation), a write in flight, and the commit Portico last pushed. */
  const comparedKey = (object: KubeObject) => {
    const a = object.metadata.annotations ?? {};
    return `${object.metadata.generation ?? ''}|${a[gitAnnotations.pending] ?? ''}|${a[gitAnnotations.commit] ?? ''}|${object.metadata.deletionTimestamp ?? ''}`;
  };

  async function compare(item: IndexedInstance): Promise<void> {
    const object = item.object;
    if (object.metadata.deletionTimestamp || pending(object)) return;
    const key = keyOf(object);
    const placement = deps.placementOf(object, item.project, key);
    const file = await deps.git.read(item.project, placement, { maxAgeMs: fetchedWithinMs });
    const desired = file.content === undefined ? undefined : specOfManifest(file.content);
    // No file (not pushed yet, or removed and waiting to be pruned) or no spec to read: nothing to compare with.
    const drifted = desired !== undefined && !deepEqual(object.spec ?? {}, desired);
    const annotations = object.metadata.annotations ?? {};
    const wasDrifted = annotations[gitAnnotations.drift] === 'true';
    const wanted: Record<string, string | null> = {
      [gitAnnotations.drift]: drifted ? 'true' : null,
      [gitAnnotations.driftedAt]: drifted ? (wasDrifted && annotations[gitAnnotations.driftedAt]) || stamp(now()) : null,
      [gitAnnotations.desiredSpec]: drifted ? JSON.stringify(desired) : null,
    };
    if (file.commit) wanted[gitAnnotations.commit] = file.commit;
    // Hybrid: the first in-sync verdict for a commit is `Synced` in the timeline (gitops has it when first applied).
    if (!drifted && desired !== undefined && file.commit && item.instance.deploymentMode === 'hybrid') syncedOnce(item, file.commit);
    const changes = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => (annotations[k] ?? null) !== v));
    if (Object.keys(changes).length === 0) return;
    try {
      await deps.cluster.patch(item.ref, key.name, { metadata: { annotations: changes } }, { namespace: key.namespace || undefined, resourceVersion: object.metadata.resourceVersion });
      if (drifted !== wasDrifted) log.info({ instance: item.id, project: item.project, drifted }, drifted ? 'the live spec no longer matches Git' : 'the live spec matches Git again');
    } catch (err) {
      // Changed meanwhile (or gone): that change brings its own comparison.
      if (!(isPorticoError(err) && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND'))) throw err;
    }
  }

  function pump() {
    for (const [id, item] of waiting) {
      if (closed || running.size >= parallel) return;
      if (running.has(id)) continue;
      waiting.delete(id);
      running.add(id);
      compare(item)
        .catch((err: unknown) => log.warn({ instance: id, err: (err as Error).message }, 'could not compare the instance with Git'))
        .finally(() => {
          running.delete(id);
          pump();
        });
    }
  }

  const enqueue = (item: IndexedInstance) => {
    if (closed || !isGitMode(item)) return;
    waiting.set(item.id, item);
    pump();
  };

  const subscription = deps.index.onChange((change) => {
    if (change.action === 'delete') waiting.delete(change.current.id);
    // A status change (most changes of a deploying instance) or this watch's own verdict moves nothing Git is
    // compared with: no Git read for it; the periodic sweep still covers a change of the remote.
    else if (!(change.action === 'update' && change.previous && comparedKey(change.previous.object) === comparedKey(change.current.object))) enqueue(change.current);
  });
  const sweep = () => {
    for (const item of deps.index.all()) enqueue(item);
  };
  // A store that cannot answer does not stop the sweep: two replicas comparing the same files costs Git reads, a
  // period without any comparison would leave drift unreported.
  const periodicSweep = () => {
    if (!deps.claimSweep) return sweep();
    const period = String(Math.floor(now().getTime() / deps.intervalMs));
    deps.claimSweep(period, deps.intervalMs).then(
      (won) => won && sweep(),
      (err: unknown) => {
        log.warn({ err: (err as Error).message }, 'could not claim the drift sweep; sweeping here');
        sweep();
      },
    );
  };
  const timer = setInterval(periodicSweep, deps.intervalMs);
  timer.unref?.();

  return {
    sweep,
    close() {
      closed = true;
      clearInterval(timer);
      subscription.close();
      waiting.clear();
    },
  };
}
