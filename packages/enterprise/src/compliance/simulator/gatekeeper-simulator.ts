import { createLogger, forbidden, isPorticoError, refKey, resources, type AdmissionRequest, type Cluster, type KubeObject, type Logger, type ResourceRef } from '@portico/core';
import { compileConstraint, createConstraintSet, type CompiledConstraint, type ConstraintSet } from '../constraint-set.js';
import { constraintCrdOf, constraintKindOf, constraintRefOf, crdRef, templateRef, type StatusViolation } from '../gatekeeper.js';
import { createInformerSet } from '../informer-set.js';
import { matchedKindKeys } from '../match.js';
import { createAuditCache, judgeSubject, sameStatus, toStatusViolation, type AuditSubject } from './audit.js';

export interface GatekeeperSimulatorOptions {
  /** Period of the full audit (PORTICO_GATEKEEPER_AUDIT_MS; default 60 s). */
  auditMs?: number;
  /** Pause between a change and the audit it triggers, so a burst of changes costs one pass (default 50 ms). */
  debounceMs?: number;
  /** Violations listed per constraint in its status (Gatekeeper's --constraint-violations-limit; default 1,000). */
  violationsLimit?: number;
  /** How often to look for the ConstraintTemplate CRD while Gatekeeper is "not installed" (default 5 s). */
  installPollMs?: number;
  logger?: Logger;
  now?: () => Date;
}

export interface AuditReport {
  subjects: number;
  /**
   * Subjects evaluated in this pass; the others' findings came from the audit's memory (unchanged object, RGD
   * and constraints). Equal to `subjects` after a constraint change, 0 for a periodic pass over a quiet cluster.
   */
  judged: number;
  constraints: number;
  violations: number;
  /** Constraints whose status was written (changed). */
  written: number;
  ms: number;
}

export interface GatekeeperSimulator {
  /** Runs a full audit pass now (after the one in progress) and reports it. */
  audit(): Promise<AuditReport>;
  /**
   * The admission webhook, for CREATE and UPDATE alike (Gatekeeper's webhook reviews both): throws FORBIDDEN when
   * `deny` constraints reject the object as it would be written (or its rendered children). An object already
   * being deleted passes, so the controllers' last writes (finalizers) land.
   */
  admit(ref: ResourceRef, obj: KubeObject, request?: AdmissionRequest): void;
  close(): Promise<void>;
}

const instanceRefOfRgd = async (cluster: Cluster, rgd: KubeObject): Promise<ResourceRef | undefined> => {
  const schema = rgd.spec?.schema;
  if (typeof schema?.kind !== 'string' || typeof schema?.apiVersion !== 'string') return undefined;
  return cluster.discover(typeof schema.group === 'string' && schema.group ? schema.group : 'kro.run', schema.apiVersion, schema.kind);
};

/** Kinds a constraint names that the cluster serves in `v1` (Namespaces, Services…): audited as plain objects. */
const plainVersions = ['v1'];

/**
 * A simulated OPA Gatekeeper, over the Cluster port like the simulated kro: for each ConstraintTemplate it
 * generates the constraint kind's CRD; it audits instances (and the objects kro would create for them, rendered
 * from their RGD) plus plain objects of the kinds constraints name, on change and every `auditMs`, writing
 * `status.totalViolations` and `status.violations[]` as Gatekeeper's audit does; and as an admission webhook it
 * refuses creates and updates that a `deny` constraint rejects. Only the template kinds of the native library
 * (policies/library.ts) are evaluated; constraints of other kinds are left alone.
 */
export function createGatekeeperSimulator(cluster: Cluster, opts: GatekeeperSimulatorOptions = {}): GatekeeperSimulator & { start(): Promise<void> } {
  const logger = (opts.logger ?? createLogger('silent')).child({ module: 'gatekeeper-sim' });
  const now = opts.now ?? (() => new Date());
  const limit = opts.violationsLimit ?? 1_000;
  const rgdByKind = new Map<string, KubeObject>(); // instance kind → RGD
  const instanceRefs = new Set<string>();
  const plainRefs = new Set<string>();
  const constraintRefs = new Map<string, ResourceRef>(); // constraint kind → ref
  let set: ConstraintSet = createConstraintSet([]);
  let denySet: ConstraintSet = set;
  let generation = 0;
  let closed = false;
  const cache = createAuditCache();
  /**
   * The status each constraint was last settled to (written, or found already so): a pass does not rewrite
   * what its watch has not delivered yet, and a pass that judged nothing anew skips the comparison.
   */
  const written = new Map<string, { count: number; listed: StatusViolation[] }>();

  const informers = createInformerSet(cluster, logger, (ref, event) => {
    if (ref.kind === templateRef.kind && ref.group === templateRef.group) void onTemplate(event.type, event.object);
    else if (refKey(ref) === refKey(resources.rgd)) void onRgd(event.type, event.object);
    else if (constraintRefs.get(ref.kind) && ref.group === constraintRefs.get(ref.kind)!.group) onConstraintsChanged(event.previous, event.object);
    else schedule();
  });

  const fail = (what: string) => (err: unknown) => {
    if (!closed) logger.warn({ err }, what);
  };

  async function onTemplate(type: string, template: KubeObject) {
    const kind = constraintKindOf(template);
    if (!kind) return;
    if (type === 'DELETED') {
      informers.drop(constraintRefOf(kind));
      constraintRefs.delete(kind);
      return rebuild();
    }
    try {
      const crd = constraintCrdOf(template);
      if (!(await cluster.get(crdRef, crd.metadata.name))) await cluster.create(crdRef, crd).catch((err) => (isPorticoError(err) && err.code === 'CONFLICT' ? undefined : Promise.reject(err)));
      let ref: ResourceRef | undefined;
      for (let i = 0; i < 50 && !(ref = await cluster.discover(constraintRefOf(kind).group, constraintRefOf(kind).version, kind)); i++) await new Promise((r) => setTimeout(r, 20));
      if (!ref || closed) return;
      constraintRefs.set(kind, ref);
      await informers.ensure(ref);
      if (template.status?.created !== true) await cluster.patch(templateRef, template.metadata.name, { status: { created: true } });
      rebuild();
    } catch (err) {
      fail(`could not serve the constraint kind ${kind}`)(err);
    }
  }

  async function onRgd(type: string, rgd: KubeObject) {
    const kind = rgd.spec?.schema?.kind;
    if (typeof kind !== 'string') return;
    if (type === 'DELETED') {
      rgdByKind.delete(kind);
      return schedule();
    }
    rgdByKind.set(kind, rgd);
    const ref = await instanceRefOfRgd(cluster, rgd).catch(() => undefined);
    if (ref && !instanceRefs.has(refKey(ref)) && !closed) {
      instanceRefs.add(refKey(ref));
      await informers.ensure(ref).catch(fail(`could not watch ${kind}`));
    }
    schedule();
  }

  function onConstraintsChanged(previous: KubeObject | undefined, next: KubeObject) {
    // The audit's own status writes come back as events: only a spec change (or a new/removed one) re-judges.
    if (previous && JSON.stringify(previous.spec) === JSON.stringify(next.spec) && previous.metadata.deletionTimestamp === next.metadata.deletionTimestamp) return;
    rebuild();
  }

  /** The constraints in force, compiled and indexed; plain kinds they name get watched. */
  function rebuild() {
    const compiled: CompiledConstraint[] = [];
    for (const ref of constraintRefs.values()) for (const obj of informers.get(ref)?.list() ?? []) {
      const c = compileConstraint(obj);
      if (c) compiled.push(c);
    }
    set = createConstraintSet(compiled);
    denySet = createConstraintSet(compiled.filter((c) => c.enforcementAction === 'deny'));
    generation++;
    for (const c of compiled) for (const key of matchedKindKeys(c.match)) void watchPlainKind(key);
    schedule();
  }

  async function watchPlainKind(key: string) {
    const [group, kind] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    if (group === '*' || kind === '*' || rgdByKind.has(kind) || plainRefs.has(key)) return;
    plainRefs.add(key);
    for (const version of plainVersions) {
      const ref = await cluster.discover(group, version, kind).catch(() => undefined);
      if (ref && !closed) {
        await informers.ensure(ref).catch(fail(`could not watch ${kind}`));
        return schedule();
      }
    }
  }

  // --- audit ---------------------------------------------------------------------------------------------

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<AuditReport> | undefined;
  let again = false;
  function schedule() {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void audit().catch(fail('audit failed'));
    }, opts.debounceMs ?? 50);
    timer.unref();
  }

  function subjects(): Array<[string, AuditSubject]> {
    const out: Array<[string, AuditSubject]> = [];
    for (const informer of informers.all()) {
      const ref = informer.ref;
      const instances = instanceRefs.has(refKey(ref));
      if (!instances && !plainRefs.has(`${ref.group}/${ref.kind}`)) continue;
      const rgd = instances ? rgdByKind.get(ref.kind) : undefined;
      if (instances && !rgd) continue;
      for (const object of informer.list()) out.push([`${refKey(ref)}|${object.metadata.namespace ?? ''}/${object.metadata.name}`, { object, rgd }]);
    }
    return out;
  }

  async function pass(): Promise<AuditReport> {
    const started = performance.now();
    // Per constraint: how many, and the first `limit` as the status lists them (the rest are only counted).
    const byConstraint = new Map<CompiledConstraint, { count: number; listed: StatusViolation[] }>();
    const seen = new Set<string>();
    const judgedBefore = cache.judged();
    const list = subjects();
    for (const [key, subject] of list) {
      seen.add(key);
      for (const f of cache.findings(set, generation, key, subject)) {
        let found = byConstraint.get(f.constraint);
        if (!found) byConstraint.set(f.constraint, (found = { count: 0, listed: [] }));
        if (found.count++ < limit) found.listed.push(toStatusViolation(f));
      }
    }
    const foundFor = new Map([...byConstraint].map(([c, found]) => [`${c.kind}/${c.name}`, found]));
    const changed = cache.endPass(seen);
    let writes = 0;
    let total = 0;
    let constraints = 0;
    const auditTimestamp = now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const current = new Set<string>();
    for (const [kind, ref] of constraintRefs) {
      for (const obj of informers.get(ref)?.list() ?? []) {
        if (!compileConstraint(obj)) continue;
        constraints++;
        const { count, listed } = foundFor.get(`${kind}/${obj.metadata.name}`) ?? { count: 0, listed: [] };
        total += count;
        const id = `${kind}/${obj.metadata.name}/${obj.metadata.uid ?? ''}`;
        current.add(id);
        // Nothing judged anew since the pass that settled this constraint's status: it still holds.
        if (!changed && written.has(id)) continue;
        const status = { count, listed };
        // What this audit wrote a moment ago (its watch event may not be here yet), or what the cluster holds.
        const settled = written.get(id);
        if (settled && sameStatus(count, listed, settled.count, settled.listed)) continue;
        if (sameStatus(count, listed, obj.status?.totalViolations, obj.status?.violations)) {
          written.set(id, status);
          continue;
        }
        await cluster
          .patch(ref, obj.metadata.name, { status: { totalViolations: count, violations: listed, auditTimestamp } })
          .then(() => {
            written.set(id, status);
            writes++;
          }, fail(`could not write the status of ${kind} ${obj.metadata.name}`));
      }
    }
    for (const id of written.keys()) if (!current.has(id)) written.delete(id);
    return { subjects: list.length, judged: cache.judged() - judgedBefore, constraints, violations: total, written: writes, ms: performance.now() - started };
  }

  async function audit(): Promise<AuditReport> {
    if (running) {
      again = true;
      await running.catch(() => undefined);
      if (running) return running;
    }
    again = false;
    running = pass();
    try {
      return await running;
    } finally {
      running = undefined;
      if (again) schedule();
    }
  }

  function admit(ref: ResourceRef, obj: KubeObject, _request?: AdmissionRequest) {
    if (denySet.size === 0 || obj.metadata.deletionTimestamp) return;
    const rgd = rgdByKind.get(obj.kind);
    const subject: AuditSubject = rgd && instanceRefs.has(refKey(ref)) ? { object: obj, rgd } : { object: obj };
    const findings = judgeSubject(denySet, subject);
    if (findings.length === 0) return;
    const messages = findings.map((f) => `[${f.constraint.name}] ${f.message}`);
    throw forbidden(`admission webhook "validation.gatekeeper.sh" denied the request: ${messages.join('; ')}`, {
      violations: findings.map((f) => ({ constraintKind: f.constraint.kind, constraintName: f.constraint.name, ...toStatusViolation(f) })),
    });
  }

  let periodic: NodeJS.Timeout | undefined;
  let installPoll: NodeJS.Timeout | undefined;
  async function begin() {
    await informers.ensure(templateRef);
    await informers.ensure(resources.rgd);
    periodic = setInterval(() => void audit().catch(fail('audit failed')), opts.auditMs ?? 60_000);
    periodic.unref();
    logger.info({ auditMs: opts.auditMs ?? 60_000 }, 'simulated Gatekeeper started');
  }

  return {
    async start() {
      // Gatekeeper is "installed" once its ConstraintTemplate CRD is served; until then the simulator waits.
      if (await cluster.discover(templateRef.group, templateRef.version, templateRef.kind)) return begin();
      const poll = async () => {
        installPoll = undefined;
        if (closed) return;
        if (await cluster.discover(templateRef.group, templateRef.version, templateRef.kind).catch(() => undefined)) return begin();
        installPoll = setTimeout(() => void poll(), opts.installPollMs ?? 5_000);
        installPoll.unref();
      };
      installPoll = setTimeout(() => void poll(), opts.installPollMs ?? 5_000);
      installPoll.unref();
    },
    audit,
    admit,
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(installPoll);
      clearInterval(periodic);
      informers.stop();
      await running?.catch(() => undefined);
    },
  };
}
