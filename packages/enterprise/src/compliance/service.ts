import type * as api from '@portico/api/enterprise';
import {
  badRequest, conflict, instanceManifest, isPorticoError, notFound, PorticoError, validateValues, validationFailed,
  type Actor, type CatalogService, type Cluster, type KubeObject, type ProjectsService,
} from '@portico/core';
import type { ComplianceAccess } from './access.js';
import type { PolicyChecks } from './checks.js';
import type { ComplianceIndex, IndexedViolation } from './compliance-index.js';
import { assertConstraintInput } from './constraint-input.js';
import { constraintApiVersion, constraintKindOf, enforcementOf, matchOf, parametersOf, toTemplate, totalViolationsOf } from './gatekeeper.js';

export interface ComplianceDeps {
  index: ComplianceIndex;
  access: ComplianceAccess;
  checks: PolicyChecks;
  cluster: Cluster;
  catalog: CatalogService;
  projects: ProjectsService;
  /** Portico's own namespace (PORTICO_NAMESPACE): a constraint may not match it, as it may not match kube-system. */
  porticoNamespace?: string;
}

/** One page of `items`, each of its items (only) turned into its wire form by `wire`. */
const page = <T, W>(items: readonly T[], q: { page: number; pageSize: number }, wire: (item: T) => W) => ({
  items: items.slice((q.page - 1) * q.pageSize, q.page * q.pageSize).map(wire),
  total: items.length,
  page: q.page,
  pageSize: q.pageSize,
});

const toViolation = (v: IndexedViolation): api.Violation => ({
  constraintName: v.constraintName,
  constraintKind: v.constraintKind,
  resource: v.resource,
  message: v.message,
  enforcementAction: v.enforcementAction,
  ...(v.project ? { project: v.project } : {}),
});

/** Gatekeeper absent: the data routes answer 503 with Retry-After (it may be installed any time). */
const notInstalled = () =>
  new PorticoError('SERVICE_UNAVAILABLE', 'OPA Gatekeeper is not installed in the cluster: compliance data is unavailable', { component: 'gatekeeper' }, { retryAfter: 30 });

/** §12.5 over the compliance index: reads filtered per caller, writes through the Cluster port. Knows no HTTP. */
export function createComplianceService(deps: ComplianceDeps) {
  const { index, access } = deps;
  const requireInstalled = () => {
    if (index.state() === 'not_installed') throw notInstalled();
  };

  const templateNameOf = (kind: string) => index.templateOfKind(kind)?.metadata.name ?? kind.toLowerCase();
  const toConstraint = (obj: KubeObject, violations?: api.Violation[]): api.Constraint => ({
    name: obj.metadata.name,
    kind: obj.kind,
    templateName: templateNameOf(obj.kind),
    enforcementAction: enforcementOf(obj),
    match: matchOf(obj),
    parameters: parametersOf(obj),
    violationCount: totalViolationsOf(obj),
    ...(violations ? { violations } : {}),
    labels: obj.metadata.labels ?? {},
    createdAt: obj.metadata.creationTimestamp ?? '',
  });
  const visibleViolations = (actor: Actor) => {
    const visible = access.violationFilter(actor);
    return index.violations().filter(visible);
  };
  const constraintOr404 = (kind: string, name: string) => {
    const obj = index.constraint(kind, name);
    if (!obj) throw notFound('constraint', `${kind}/${name}`);
    return obj;
  };

  return {
    status(): api.ComplianceStatus {
      const gatekeeper = index.state();
      const message = {
        installed: 'OPA Gatekeeper is installed; templates, constraints and violations are read from the cluster',
        syncing: 'OPA Gatekeeper is installed; Portico is still reading its templates and constraints',
        not_installed: 'OPA Gatekeeper is not installed in the cluster (no ConstraintTemplate resource)',
      }[gatekeeper];
      return { available: gatekeeper !== 'not_installed', enterprise: true, message, gatekeeper };
    },

    summary(actor: Actor): api.ComplianceSummary {
      requireInstalled();
      const totalViolations = visibleViolations(actor).length;
      // Templates and constraints are counted for those who may read them; a project member learns only its own violations.
      if (!access.readsPolicies(actor)) return { totalTemplates: 0, totalConstraints: 0, totalViolations, byEnforcement: { deny: 0, warn: 0, dryrun: 0 } };
      const constraints = index.constraints();
      const byEnforcement = { deny: 0, warn: 0, dryrun: 0 };
      for (const c of constraints) byEnforcement[enforcementOf(c)]++;
      return { totalTemplates: index.templates().length, totalConstraints: constraints.length, totalViolations, byEnforcement };
    },

    templates(actor: Actor, q: api.CompliancePageQuery): api.ConstraintTemplateList {
      requireInstalled();
      access.requirePolicyReader(actor);
      return page(index.templates(), q, toTemplate);
    },

    template(actor: Actor, name: string): api.ConstraintTemplate {
      requireInstalled();
      access.requirePolicyReader(actor);
      const obj = index.template(name);
      if (!obj) throw notFound('constraint template', name);
      return toTemplate(obj);
    },

    constraints(actor: Actor, q: api.ConstraintListQuery): api.ConstraintList {
      requireInstalled();
      access.requirePolicyReader(actor);
      const items = index.constraints().filter((c) => (!q.kind || c.kind === q.kind) && (!q.enforcement || enforcementOf(c) === q.enforcement));
      return page(items, q, (c) => toConstraint(c));
    },

    constraint(actor: Actor, kind: string, name: string): api.Constraint {
      requireInstalled();
      access.requirePolicyReader(actor);
      const obj = constraintOr404(kind, name);
      const visible = access.violationFilter(actor);
      return toConstraint(obj, index.violations().filter((v) => v.constraintKind === kind && v.constraintName === name && visible(v)).map(toViolation));
    },

    violations(actor: Actor, q: api.ViolationListQuery): api.ViolationList {
      requireInstalled();
      const [cKind, cName] = q.constraint ? q.constraint.split('/') : [];
      const [rKind, rNs, rName] = q.resource ? q.resource.split('/') : [];
      // A project's list reads that project's violations only, not every violation in force.
      const candidates = q.project ? index.violationsOfProject(q.project) : index.violations();
      const visible = access.violationFilter(actor);
      const items = candidates.filter(
        (v) =>
          visible(v) &&
          (!q.constraint || (v.constraintKind === cKind && v.constraintName === cName)) &&
          (!q.resource || (v.resource.kind === rKind && v.resource.namespace === rNs && v.resource.name === rName)),
      );
      return page(items, q, toViolation);
    },

    async createConstraint(actor: Actor, body: api.CreateConstraintRequest): Promise<api.Constraint> {
      requireInstalled();
      access.requireAdmin(actor, 'creating a constraint');
      const template = index.template(body.templateName);
      if (!template) throw notFound('constraint template', body.templateName);
      assertConstraintInput(body, template, { porticoNamespace: deps.porticoNamespace });
      const kind = constraintKindOf(template);
      const ref = index.constraintRef(kind);
      if (!ref) throw new PorticoError('SERVICE_UNAVAILABLE', `Gatekeeper does not serve the constraint kind ${kind} yet`, { component: 'gatekeeper' }, { retryAfter: 5 });
      if (index.constraint(kind, body.name)) throw conflict(`constraint "${kind}/${body.name}" already exists`, { kind, name: body.name });
      const obj: KubeObject = {
        apiVersion: constraintApiVersion,
        kind,
        metadata: { name: body.name, ...(body.labels ? { labels: body.labels } : {}) },
        spec: { enforcementAction: body.enforcementAction, match: body.match, ...(body.parameters ? { parameters: body.parameters } : {}) },
      };
      try {
        return toConstraint(await deps.cluster.create(ref, obj), []);
      } catch (err) {
        if (isPorticoError(err) && err.code === 'CONFLICT') throw conflict(`constraint "${kind}/${body.name}" already exists`, { kind, name: body.name });
        throw err;
      }
    },

    async setEnforcement(actor: Actor, kind: string, name: string, body: api.SetEnforcementRequest): Promise<api.Constraint> {
      requireInstalled();
      access.requireAdmin(actor, 'changing enforcement');
      constraintOr404(kind, name);
      const patched = await deps.cluster.patch(index.constraintRef(kind)!, name, { spec: { enforcementAction: body.enforcementAction } });
      return toConstraint(patched);
    },

    async validate(actor: Actor, body: api.ValidateRequest): Promise<api.ValidateResponse> {
      requireInstalled();
      deps.projects.get(actor, body.project); // 404 unknown project, 403 when not a member
      const entry = deps.catalog.entry(body.rgdName);
      if (!entry || !deps.catalog.visibleTo(actor, entry)) throw notFound('rgd', body.rgdName);
      if (!entry.isClusterScoped && !body.namespace) throw badRequest(`rgd "${entry.name}" is namespaced: name a namespace`, { field: 'namespace' });
      const values = validateValues(deps.catalog.schemaOf(entry), body.values);
      if (!values.ok) throw validationFailed(values.fields, 'the values do not match the RGD schema');
      const manifest = instanceManifest({
        apiVersion: entry.apiVersion, kind: entry.kind, name: `${entry.name}-preview`, namespace: entry.isClusterScoped ? '' : (body.namespace ?? ''),
        project: body.project, rgdName: entry.name, deploymentMode: 'direct', createdBy: actor.id, createdAt: new Date().toISOString(), spec: values.value,
      });
      return deps.checks.validate(entry.name, manifest);
    },
  };
}
export type ComplianceService = ReturnType<typeof createComplianceService>;
