import type * as api from '@portico/api/enterprise';
import { createLogger, type Cluster, type Disposable, type InformerEvent, type KubeObject, type Logger, type ResourceRef } from '@portico/core';
import { constraintKindOf, constraintRefOf, enforcementOf, statusViolationsOf, templateRef } from './gatekeeper.js';
import { createInformerSet } from './informer-set.js';
import type { ProjectsByNamespace } from './projects-by-namespace.js';
import { violationKey, type ViolationChange, type ViolationChangeListener, type ViolationChangeSource } from './violation-changes.js';

export type PolicyChange =
  | { type: 'template'; action: 'add' | 'update' | 'delete'; object: KubeObject }
  /** `violations`: the violation changes this constraint change caused (also sent to onViolationChange). */
  | { type: 'constraint'; action: 'add' | 'update' | 'delete'; object: KubeObject; violations: readonly ViolationChange[] };

/** A violation in force, as the index holds it (the change that added it, project resolved then). */
export type IndexedViolation = ViolationChange;

export interface ComplianceIndex extends ViolationChangeSource {
  /** installed: templates and every constraint kind read; syncing: still reading, or a template's kind not served yet. */
  state(): api.GatekeeperState;
  templates(): KubeObject[];
  template(name: string): KubeObject | undefined;
  /** The template that defines a constraint kind. */
  templateOfKind(kind: string): KubeObject | undefined;
  constraints(): KubeObject[];
  constraint(kind: string, name: string): KubeObject | undefined;
  constraintRef(kind: string): ResourceRef | undefined;
  /** Every violation in force, ordered by constraint then resource; the same array until the next change. */
  violations(): readonly IndexedViolation[];
  /** The violations attributed to one project, in the same order (a list filtered by project reads only these). */
  violationsOfProject(project: string): readonly IndexedViolation[];
  onPolicyChange(listener: (change: PolicyChange) => void): Disposable;
  start(): Promise<void>;
  stop(): void;
}

const byName = (a: KubeObject, b: KubeObject) => a.metadata.name.localeCompare(b.metadata.name);
const timestamp = () => new Date().toISOString();

/**
 * Gatekeeper as Portico reads it through the Cluster port: templates and every constraint kind they define,
 * watched into memory, and the violations of each constraint's `status.violations[]` diffed into changes (the
 * stream the history and the live events consume). Gatekeeper absent (its ConstraintTemplate kind not served)
 * is `not_installed`; the index looks again every `installPollMs` so installing it later needs no restart.
 */
export function createComplianceIndex(deps: { cluster: Cluster; projects: ProjectsByNamespace; logger?: Logger; installPollMs?: number }): ComplianceIndex {
  const { cluster, projects } = deps;
  const logger = (deps.logger ?? createLogger('silent')).child({ module: 'compliance-index' });
  let installed = false;
  let templatesSynced = false;
  const kindRefs = new Map<string, ResourceRef>(); // constraint kind → ref, once served
  const pendingKinds = new Set<string>(); // kinds of templates not served (yet)
  const byConstraint = new Map<string, Map<string, ViolationChange>>(); // `${kind}/${name}` → key → violation
  let sorted: IndexedViolation[] | undefined;
  let byProject: Map<string, IndexedViolation[]> | undefined; // grouped from `sorted`, dropped with it
  const violationListeners = new Set<ViolationChangeListener>();
  const policyListeners = new Set<(change: PolicyChange) => void>();
  let closed = false;
  let poll: NodeJS.Timeout | undefined;

  const emit = <T>(listeners: Set<(x: T) => void>, value: T) => {
    for (const listener of [...listeners]) {
      try {
        listener(value);
      } catch (err) {
        logger.error({ err }, 'compliance listener failed');
      }
    }
  };

  /** `project` and `object` of a violation: its instance's, else its namespace's project (projects-by-namespace.ts). */
  const ownerOf = (r: ViolationChange['resource']) => {
    const owner = projects.ownerOf(r);
    return { ...(owner.project ? { project: owner.project } : {}), ...(owner.object ? { object: owner.object } : {}) };
  };
  // A project created or re-pointed later, an instance that appeared or moved: the violations follow their owner.
  const projectSubscription = projects.onChange(() => {
    for (const violations of byConstraint.values()) {
      for (const [key, v] of violations) {
        const owner = ownerOf(v.resource);
        if (owner.project === v.project && owner.object === v.object) continue;
        const { project: _project, object: _object, ...rest } = v;
        violations.set(key, { ...rest, ...owner });
        [sorted, byProject] = [undefined, undefined];
      }
    }
  });

  /** The violations a constraint reports now, keyed, each with the constraint's enforcement in force. */
  function violationsOf(obj: KubeObject): Map<string, ViolationChange> {
    const out = new Map<string, ViolationChange>();
    const enforcementAction = enforcementOf(obj);
    const observedAt = timestamp();
    for (const v of statusViolationsOf(obj)) {
      const resource = { kind: v.kind, namespace: v.namespace ?? '', name: v.name, apiGroup: v.group };
      const base = { constraintKind: obj.kind, constraintName: obj.metadata.name, resource, message: v.message };
      const key = violationKey(base);
      out.set(key, { action: 'add', key, ...base, enforcementAction, ...ownerOf(resource), observedAt });
    }
    return out;
  }

  function onConstraint(event: InformerEvent) {
    const obj = event.object;
    const id = `${obj.kind}/${obj.metadata.name}`;
    const before = byConstraint.get(id) ?? new Map<string, ViolationChange>();
    const after = event.type === 'DELETED' ? new Map<string, ViolationChange>() : violationsOf(obj);
    if (after.size > 0) byConstraint.set(id, after);
    else byConstraint.delete(id);
    const changes: ViolationChange[] = [];
    for (const [key, v] of before) if (!after.has(key)) changes.push({ ...v, action: 'delete', observedAt: timestamp() });
    for (const [key, v] of after) {
      const old = before.get(key);
      if (!old) changes.push(v);
      else if (old.enforcementAction !== v.enforcementAction) changes.push(v);
      else after.set(key, old); // unchanged: keep when it was first observed here
    }
    if (changes.length > 0) [sorted, byProject] = [undefined, undefined];
    emit(policyListeners, { type: 'constraint', action: event.type === 'ADDED' ? 'add' : event.type === 'DELETED' ? 'delete' : 'update', object: obj, violations: changes });
    for (const change of changes) emit(violationListeners, change);
  }

  const constraintInformers = createInformerSet(cluster, logger, (_ref, event) => onConstraint(event));

  async function serveKind(kind: string) {
    const ref = await cluster.discover(constraintRefOf(kind).group, constraintRefOf(kind).version, kind).catch(() => undefined);
    if (!ref || closed) {
      pendingKinds.add(kind);
      return;
    }
    pendingKinds.delete(kind);
    kindRefs.set(kind, ref);
    await constraintInformers.ensure(ref);
  }

  const templateInformers = createInformerSet(cluster, logger, (_ref, event) => {
    const kind = constraintKindOf(event.object);
    emit(policyListeners, { type: 'template', action: event.type === 'ADDED' ? 'add' : event.type === 'DELETED' ? 'delete' : 'update', object: event.object });
    if (!kind) return;
    if (event.type === 'DELETED') {
      const ref = kindRefs.get(kind);
      if (ref) for (const obj of constraintInformers.get(ref)?.list() ?? []) onConstraint({ type: 'DELETED', object: obj });
      if (ref) constraintInformers.drop(ref);
      kindRefs.delete(kind);
      pendingKinds.delete(kind);
    } else if (!kindRefs.has(kind)) {
      pendingKinds.add(kind);
      // Gatekeeper generates the kind's CRD a moment after the template: look again until it is served.
      void serveKind(kind)
        .catch((err) => logger.warn({ err, kind }, 'could not watch a constraint kind'))
        .then(() => pendingKinds.size > 0 && schedulePoll());
    }
  });

  async function begin() {
    installed = true;
    const informer = await templateInformers.ensure(templateRef);
    await Promise.all(informer.list().map((t) => constraintKindOf(t)).filter(Boolean).map((kind) => serveKind(kind)));
    templatesSynced = true;
    logger.info({ templates: informer.list().length }, 'Gatekeeper found: compliance data served');
  }

  /** Looks for Gatekeeper (and for constraint kinds its templates define but the API did not serve yet). */
  async function check() {
    poll = undefined;
    if (closed) return;
    try {
      if (!installed) {
        if (await cluster.discover(templateRef.group, templateRef.version, templateRef.kind)) await begin();
      } else {
        for (const kind of [...pendingKinds]) await serveKind(kind);
      }
    } catch (err) {
      logger.warn({ err }, 'looking for Gatekeeper failed; trying again');
    }
    if (!installed || pendingKinds.size > 0) schedulePoll();
  }

  function schedulePoll() {
    if (closed || poll) return;
    poll = setTimeout(() => void check(), deps.installPollMs ?? 10_000);
    poll.unref();
  }

  function violations(): readonly IndexedViolation[] {
    if (!sorted) {
      sorted = [...byConstraint.values()].flatMap((m) => [...m.values()]);
      sorted.sort((a, b) =>
        a.constraintKind.localeCompare(b.constraintKind) || a.constraintName.localeCompare(b.constraintName) ||
        a.resource.namespace.localeCompare(b.resource.namespace) || a.resource.kind.localeCompare(b.resource.kind) ||
        a.resource.name.localeCompare(b.resource.name) || a.message.localeCompare(b.message));
    }
    return sorted;
  }

  const allConstraints = () => [...kindRefs.values()].flatMap((ref) => constraintInformers.get(ref)?.list() ?? []);

  return {
    state: () => (!installed ? 'not_installed' : !templatesSynced || pendingKinds.size > 0 ? 'syncing' : 'installed'),
    templates: () => (templateInformers.get(templateRef)?.list() ?? []).sort(byName),
    template: (name) => templateInformers.get(templateRef)?.get(name),
    templateOfKind: (kind) => (templateInformers.get(templateRef)?.list() ?? []).find((t) => constraintKindOf(t) === kind),
    constraints: () => allConstraints().sort((a, b) => a.kind.localeCompare(b.kind) || byName(a, b)),
    constraint(kind, name) {
      const ref = kindRefs.get(kind);
      return ref ? constraintInformers.get(ref)?.get(name) : undefined;
    },
    constraintRef: (kind) => kindRefs.get(kind),
    violations,
    violationsOfProject(project) {
      if (!byProject) {
        byProject = new Map();
        for (const v of violations()) {
          if (!v.project) continue;
          let list = byProject.get(v.project);
          if (!list) byProject.set(v.project, (list = []));
          list.push(v);
        }
      }
      return byProject.get(project) ?? [];
    },
    current: () => [...byConstraint.values()].flatMap((m) => [...m.values()]),
    onViolationChange(listener) {
      violationListeners.add(listener);
      return { close: () => void violationListeners.delete(listener) };
    },
    onPolicyChange(listener) {
      policyListeners.add(listener);
      return { close: () => void policyListeners.delete(listener) };
    },
    async start() {
      await check();
    },
    stop() {
      closed = true;
      clearTimeout(poll);
      projectSubscription.close();
      templateInformers.stop();
      constraintInformers.stop();
    },
  };
}

