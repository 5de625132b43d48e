import { createLogger, refKey, resources, type AdmissionRequest, type Cluster, type InformerEvent, type KubeObject, type Logger, type ResourceRef } from '@portico/core';
import { templateRef } from '../gatekeeper.js';
import { createInformerSet } from '../informer-set.js';
import { createAdmission } from './admission.js';
import { createAuditLoop } from './audit-loop.js';
import { createAuditPass, type AuditReport } from './audit-pass.js';
import { createConstraints } from './constraints.js';
import { createSimulatorState, type SimulatorState } from './state.js';
import { onRgd } from './subjects.js';
import { onTemplate } from './templates.js';

export type { AuditReport } from './audit-pass.js';

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

/**
 * A simulated OPA Gatekeeper, over the Cluster port like the simulated kro: for each ConstraintTemplate it
 * generates the constraint kind's CRD; it audits instances (and the objects kro would create for them, rendered
 * from their RGD) plus plain objects of the kinds constraints name, on change and every `auditMs`, writing
 * `status.totalViolations` and `status.violations[]` as Gatekeeper's audit does; and as an admission webhook it
 * refuses creates and updates that a `deny` constraint rejects. Only the template kinds of the native library
 * (policies/library.ts) are evaluated; constraints of other kinds are left alone.
 *
 * Split by phase: templates (constraint kinds served), constraints (those in force), subjects (instance kinds
 * and what an audit looks at), audit-pass and audit-loop (judging, status writes, when), admission (the
 * webhook); this file routes the watch events to them and starts and stops the whole.
 */
export function createGatekeeperSimulator(cluster: Cluster, opts: GatekeeperSimulatorOptions = {}): GatekeeperSimulator & { start(): Promise<void> } {
  const logger = (opts.logger ?? createLogger('silent')).child({ module: 'gatekeeper-sim' });
  const auditMs = opts.auditMs ?? 60_000;
  // The informers' listener routes to the phases below; no event arrives before start() watches a first kind.
  const informers = createInformerSet(cluster, logger, (ref, event) => route(ref, event));
  const state = createSimulatorState(cluster, logger, informers);
  const loop = createAuditLoop(state, createAuditPass(state, { limit: opts.violationsLimit ?? 1_000, now: opts.now ?? (() => new Date()) }), {
    debounceMs: opts.debounceMs ?? 50,
    auditMs,
  });
  const constraints = createConstraints(state, loop.schedule);

  function route(ref: ResourceRef, event: InformerEvent) {
    if (ref.kind === templateRef.kind && ref.group === templateRef.group) void onTemplate(state, event.type, event.object, constraints.rebuild);
    else if (refKey(ref) === refKey(resources.rgd)) void onRgd(state, event.type, event.object, loop.schedule);
    else if (isConstraintKind(state, ref)) constraints.onConstraint(event.previous, event.object);
    else loop.schedule();
  }

  const install = waitForInstall(state, opts.installPollMs ?? 5_000, async () => {
    await informers.ensure(templateRef);
    await informers.ensure(resources.rgd);
    loop.startPeriodic();
    logger.info({ auditMs }, 'simulated Gatekeeper started');
  });

  return {
    start: install.start,
    audit: loop.audit,
    admit: createAdmission(state),
    async close() {
      state.closed = true;
      install.stop();
      informers.stop();
      await loop.stop();
    },
  };
}

const isConstraintKind = (state: SimulatorState, ref: ResourceRef) => state.constraintRefs.get(ref.kind)?.group === ref.group;

/** Gatekeeper is "installed" once its ConstraintTemplate CRD is served; until then the simulator polls for it. */
function waitForInstall(state: SimulatorState, pollMs: number, begin: () => Promise<void>) {
  let poll: NodeJS.Timeout | undefined;
  const served = () => state.cluster.discover(templateRef.group, templateRef.version, templateRef.kind);
  const later = () => {
    poll = setTimeout(() => void look(), pollMs);
    poll.unref();
  };
  const look = async () => {
    poll = undefined;
    if (state.closed) return;
    if (await served().catch(() => undefined)) return begin();
    later();
  };
  return {
    async start() {
      if (await served()) return begin();
      later();
    },
    stop: () => clearTimeout(poll),
  };
}
