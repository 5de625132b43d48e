import type { Logger, Portico } from '@portico/core';
import { complianceOperations } from '../operations.js';
import type { LicenseService } from '../license/service.js';
import type { EnterpriseModule } from '../plugin.js';
import { createComplianceAccess } from './access.js';
import { createPolicyChecks } from './checks.js';
import { createComplianceIndex, type ComplianceIndex } from './compliance-index.js';
import { complianceEventStream, publishComplianceEvents } from './events.js';
import { complianceHandlers } from './handlers.js';
import { createProjectsByNamespace } from './projects-by-namespace.js';
import { createComplianceService } from './service.js';
import { createGatekeeperSimulator, type GatekeeperSimulator } from './simulator/gatekeeper-simulator.js';
import type { ViolationChangeSource } from './violation-changes.js';

export { createGatekeeperSimulator, type GatekeeperSimulator, type GatekeeperSimulatorOptions } from './simulator/gatekeeper-simulator.js';
export type { ViolationChange, ViolationChangeListener, ViolationChangeSource } from './violation-changes.js';
export { violationKey } from './violation-changes.js';


export interface ComplianceModule extends EnterpriseModule {
  /** The violation change stream (the PostgreSQL history consumes it). */
  changes: ViolationChangeSource;
  index: ComplianceIndex;
  /** The simulated Gatekeeper, when this replica runs one (embedded cluster). */
  simulator?: GatekeeperSimulator;
  /** Resolves once the index has looked for Gatekeeper (and read it, when installed). */
  ready: Promise<void>;
}

export interface ComplianceModuleOptions {
  portico: Portico;
  license: Pick<LicenseService, 'gate'>;
  logger: Logger;
  /** Full audit period of the simulated Gatekeeper (PORTICO_GATEKEEPER_AUDIT_MS). */
  auditMs?: number;
  /** How often to look for Gatekeeper while it is absent. */
  installPollMs?: number;
}

/** One simulated Gatekeeper per cluster, however many Portico replicas share it in one process (tests). */
const simulated = new WeakSet<object>();

/**
 * §12.5 as an Enterprise module: the compliance index over Gatekeeper's objects, its routes (both path
 * families) behind the `compliance` license feature, the `compliance` RBAC row, the `violations` stream of
 * /ws, and the policy check on instance creates. On the embedded cluster it also runs the simulated Gatekeeper
 * (audit and admission webhook), as the embedded cluster runs the simulated kro: the OSS build never loads it.
 */
export function createComplianceModule(opts: ComplianceModuleOptions): ComplianceModule {
  const { portico, logger } = opts;
  const cluster = portico.cluster;
  const projects = createProjectsByNamespace(portico.projectObjects, { instances: portico.instances.indexed, catalog: portico.catalog });
  const index = createComplianceIndex({ cluster, projects, logger, installPollMs: opts.installPollMs });
  const access = createComplianceAccess(portico.authz, portico.vocabulary);
  const checks = createPolicyChecks({ index, cluster });
  const service = portico.operations.wrap(createComplianceService({ index, access, checks, cluster, catalog: portico.catalog, projects: portico.projects, porticoNamespace: portico.config.kubernetes.namespace }), complianceOperations);
  const publishing = publishComplianceEvents(index, portico.events, logger);

  const licensed = () => {
    try {
      opts.license.gate('compliance', 'write');
      return true;
    } catch {
      return false;
    }
  };
  const admission = portico.instances.addAdmission(async ({ project, rgdName, manifest }) =>
    licensed() ? checks.admit(rgdName, manifest, project) : undefined,
  );

  let simulator: (GatekeeperSimulator & { start(): Promise<void> }) | undefined;
  let webhook: { close(): void } | undefined;
  // A cluster that lets Portico run admission webhooks (the embedded one) has no Gatekeeper of its own: run the
  // simulated one there, as the embedded cluster runs the simulated kro.
  const addWebhook = cluster.addAdmissionWebhook?.bind(cluster);
  if (addWebhook && !simulated.has(cluster)) {
    simulated.add(cluster);
    simulator = createGatekeeperSimulator(cluster, { auditMs: opts.auditMs, installPollMs: opts.installPollMs, logger });
    webhook = addWebhook((ref, obj, request) => simulator!.admit(ref, obj, request));
  }
  const ready = (async () => {
    await simulator?.start();
    await index.start();
  })();
  ready.catch((err: unknown) => logger.error({ err }, 'compliance did not start'));

  const stream = portico.eventStreams.add(complianceEventStream(access));
  return {
    handlers: complianceHandlers(service),
    changes: index,
    index,
    simulator,
    ready,
    async stop() {
      admission.close();
      stream.close();
      webhook?.close();
      publishing.close();
      await simulator?.close();
      if (simulator) simulated.delete(cluster);
      index.stop();
      projects.stop();
    },
  };
}
