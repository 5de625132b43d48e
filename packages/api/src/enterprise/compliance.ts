import { z } from 'zod';
import { DnsLabel, DnsSubdomain, KindName, Labels, PageQuery, Timestamp } from '../common.js';
import type { EnterpriseRouteDef } from './route-def.js';

// §12.5 Compliance (OPA Gatekeeper): what Portico reads from ConstraintTemplates (templates.gatekeeper.sh/v1)
// and constraints (constraints.gatekeeper.sh/v1beta1), and what it answers about them. The violation history
// in PostgreSQL has its own file (compliance-history.ts).

export const EnforcementAction = z.enum(['deny', 'warn', 'dryrun']);
export type EnforcementAction = z.infer<typeof EnforcementAction>;

export const GatekeeperState = z.enum(['installed', 'not_installed', 'syncing']);
export type GatekeeperState = z.infer<typeof GatekeeperState>;

export const ComplianceStatus = z.object({
  available: z.boolean().describe('the data routes answer (Gatekeeper installed and its objects read)'),
  enterprise: z.literal(true),
  message: z.string(),
  gatekeeper: GatekeeperState,
});
export type ComplianceStatus = z.infer<typeof ComplianceStatus>;

export const ComplianceSummary = z.object({
  totalTemplates: z.number().int(),
  totalConstraints: z.number().int(),
  totalViolations: z.number().int().describe('violations the caller may see'),
  byEnforcement: z.object({ deny: z.number().int(), warn: z.number().int(), dryrun: z.number().int() }).describe('constraints by enforcement action'),
});
export type ComplianceSummary = z.infer<typeof ComplianceSummary>;

export const ConstraintTemplate = z.object({
  name: z.string(),
  kind: z.string().describe('the constraint kind the template defines'),
  description: z.string(),
  rego: z.string(),
  parameters: z.record(z.string(), z.unknown()).describe('openAPIV3Schema of the constraints\' parameters'),
  labels: Labels,
  createdAt: Timestamp,
});
export type ConstraintTemplate = z.infer<typeof ConstraintTemplate>;

export const ViolatingResource = z.object({
  kind: z.string(),
  namespace: z.string().describe('"" when cluster-scoped'),
  name: z.string(),
  apiGroup: z.string().describe('"" for the core group'),
});
export type ViolatingResource = z.infer<typeof ViolatingResource>;

export const Violation = z.object({
  constraintName: z.string(),
  constraintKind: z.string(),
  resource: ViolatingResource,
  message: z.string(),
  enforcementAction: EnforcementAction,
  project: z.string().optional().describe('the Portico project whose namespace holds the resource'),
});
export type Violation = z.infer<typeof Violation>;

const MatchNamespace = z.string().min(1).max(63);
export const MatchKinds = z.strictObject({
  apiGroups: z.array(z.string().max(253)).max(50).default([]),
  kinds: z.array(z.string().min(1).max(63)).max(50).default([]),
});
export const ConstraintMatch = z.strictObject({
  kinds: z.array(MatchKinds).max(50).default([]),
  namespaces: z.array(MatchNamespace).max(200).default([]),
  excludedNamespaces: z.array(MatchNamespace).max(200).default([]),
  scope: z.enum(['*', 'Namespaced', 'Cluster']).default('*'),
});
export type ConstraintMatch = z.infer<typeof ConstraintMatch>;

export const Constraint = z.object({
  name: z.string(),
  kind: z.string(),
  templateName: z.string(),
  enforcementAction: EnforcementAction,
  match: ConstraintMatch,
  parameters: z.record(z.string(), z.unknown()),
  violationCount: z.number().int().describe('as Gatekeeper\'s audit reports it (status.totalViolations)'),
  violations: z.array(Violation).optional().describe('detail only: the ones the caller may see'),
  labels: Labels,
  createdAt: Timestamp,
});
export type Constraint = z.infer<typeof Constraint>;

/** The list envelope of §12.5 (`total`, not `totalCount`). */
const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

export const ConstraintTemplateList = pageOf(ConstraintTemplate);
export type ConstraintTemplateList = z.infer<typeof ConstraintTemplateList>;
export const ConstraintList = pageOf(Constraint);
export type ConstraintList = z.infer<typeof ConstraintList>;
export const ViolationList = pageOf(Violation);
export type ViolationList = z.infer<typeof ViolationList>;

export const CompliancePageQuery = z.object({ page: PageQuery.page, pageSize: PageQuery.pageSize });
export type CompliancePageQuery = z.infer<typeof CompliancePageQuery>;

export const ConstraintListQuery = CompliancePageQuery.extend({ kind: KindName.optional(), enforcement: EnforcementAction.optional() });
export type ConstraintListQuery = z.infer<typeof ConstraintListQuery>;

export const ViolationListQuery = CompliancePageQuery.extend({
  constraint: z.string().regex(/^[A-Z][A-Za-z0-9]{0,62}\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be Kind/name').optional(),
  resource: z.string().regex(/^[A-Z][A-Za-z0-9]{0,62}\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be Kind/namespace/name (namespace empty when cluster-scoped)').optional(),
  project: DnsLabel.optional(),
});
export type ViolationListQuery = z.infer<typeof ViolationListQuery>;

export const TemplateParams = z.object({ name: DnsSubdomain });
export const ConstraintParams = z.object({ kind: KindName, name: DnsSubdomain });

/**
 * A Kubernetes label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters
 * (alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric); a value is empty or such a name.
 */
const labelName = '[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
export const KubeLabelKey = z
  .string()
  .max(317)
  .regex(new RegExp(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?${labelName}$`), 'must be a Kubernetes label key ([prefix/]name)')
  .refine((key) => !key.includes('/') || key.indexOf('/') <= 253, 'the prefix must be at most 253 characters');
export const KubeLabels = z.record(KubeLabelKey, z.string().regex(new RegExp(`^(${labelName})?$`), 'must be a Kubernetes label value (at most 63 characters)'));

/**
 * The match of a new constraint: as Gatekeeper reads it, except that `namespaces`, when given, names at least one
 * namespace (leave it out to match every namespace). Each entry's form and reach are checked by the server
 * (§12.5: DNS-1123 labels or `prefix*` / `*suffix` patterns, none that could match a system namespace).
 */
export const CreateConstraintMatch = ConstraintMatch.extend({
  namespaces: z.array(MatchNamespace).min(1, 'must name at least one namespace (leave it out to match every namespace)').max(200).optional(),
});
export type CreateConstraintMatch = z.infer<typeof CreateConstraintMatch>;

export const CreateConstraintRequest = z.strictObject({
  name: DnsSubdomain,
  templateName: DnsSubdomain,
  enforcementAction: EnforcementAction.default('deny'),
  match: CreateConstraintMatch.optional(),
  parameters: z.record(z.string(), z.unknown()).optional().describe('validated against the template\'s openAPIV3Schema (unknown fields refused); at most 64 KiB'),
  labels: KubeLabels.optional(),
});
export type CreateConstraintRequest = z.infer<typeof CreateConstraintRequest>;

export const SetEnforcementRequest = z.strictObject({ enforcementAction: EnforcementAction });
export type SetEnforcementRequest = z.infer<typeof SetEnforcementRequest>;

export const ValidateRequest = z.strictObject({
  rgdName: DnsSubdomain,
  project: DnsLabel,
  namespace: DnsLabel.optional().describe('absent for a cluster-scoped kind'),
  values: z.record(z.string(), z.unknown()).default({}),
});
export type ValidateRequest = z.infer<typeof ValidateRequest>;

export const PolicyFinding = z.object({
  policy: z.string().describe('Kind/name of the constraint'),
  severity: z.enum(['warning', 'error']).describe('error: a deny constraint (the create would be refused)'),
  message: z.string(),
  field: z.string().optional().describe('the resource of the rendered manifest it is about (Kind/name)'),
});
export type PolicyFinding = z.infer<typeof PolicyFinding>;

export const ValidateResponse = z.object({ result: z.enum(['pass', 'warning', 'block']), violations: z.array(PolicyFinding) });
export type ValidateResponse = z.infer<typeof ValidateResponse>;

// WebSocket events (`resourceType: "violations"`, also `all`).
export const ViolationUpdate = Violation.extend({ action: z.enum(['add', 'delete']) });
export type ViolationUpdate = z.infer<typeof ViolationUpdate>;
export const TemplateUpdate = z.object({ action: z.enum(['add', 'update', 'delete']), name: z.string(), kind: z.string() });
export type TemplateUpdate = z.infer<typeof TemplateUpdate>;
export const ConstraintUpdate = z.object({
  action: z.enum(['add', 'update', 'delete']),
  kind: z.string(),
  name: z.string(),
  enforcementAction: EnforcementAction,
  violationCount: z.number().int(),
});
export type ConstraintUpdate = z.infer<typeof ConstraintUpdate>;

export const complianceEventData = { violation_update: ViolationUpdate, template_update: TemplateUpdate, constraint_update: ConstraintUpdate } as const;

const rows = [
  { id: 'complianceStatus', method: 'GET', path: '/api/v1/compliance/status', auth: 'user', tag: 'compliance', summary: 'Whether Gatekeeper is installed and its objects read', status: 200, response: ComplianceStatus },
  { id: 'complianceSummary', method: 'GET', path: '/api/v1/compliance/summary', auth: 'user', tag: 'compliance', summary: 'Templates, constraints by enforcement, violations the caller may see', status: 200, response: ComplianceSummary },
  { id: 'listConstraintTemplates', method: 'GET', path: '/api/v1/compliance/templates', auth: 'user', tag: 'compliance', summary: 'ConstraintTemplates', query: CompliancePageQuery, status: 200, response: ConstraintTemplateList },
  { id: 'getConstraintTemplate', method: 'GET', path: '/api/v1/compliance/templates/{name}', auth: 'user', tag: 'compliance', summary: 'One ConstraintTemplate', params: TemplateParams, status: 200, response: ConstraintTemplate },
  { id: 'listConstraints', method: 'GET', path: '/api/v1/compliance/constraints', auth: 'user', tag: 'compliance', summary: 'Constraints of every template kind', query: ConstraintListQuery, status: 200, response: ConstraintList },
  { id: 'getConstraint', method: 'GET', path: '/api/v1/compliance/constraints/{kind}/{name}', auth: 'user', tag: 'compliance', summary: 'One constraint with the violations the caller may see', params: ConstraintParams, status: 200, response: Constraint },
  { id: 'createConstraint', method: 'POST', path: '/api/v1/compliance/constraints', auth: 'user', tag: 'compliance', summary: 'Create a constraint of a template (Server Admin)', body: CreateConstraintRequest, status: 201, response: Constraint, operation: 'constraints.create' },
  { id: 'setConstraintEnforcement', method: 'PATCH', path: '/api/v1/compliance/constraints/{kind}/{name}/enforcement', auth: 'user', tag: 'compliance', summary: 'Change a constraint\'s enforcement action (Server Admin)', params: ConstraintParams, body: SetEnforcementRequest, status: 200, response: Constraint, operation: 'constraints.enforcement' },
  { id: 'listViolations', method: 'GET', path: '/api/v1/compliance/violations', auth: 'user', tag: 'compliance', summary: 'Current violations the caller may see', query: ViolationListQuery, status: 200, response: ViolationList },
  { id: 'validateCompliance', method: 'POST', path: '/api/v1/compliance/validate', auth: 'user', tag: 'compliance', summary: 'What the constraints in force would say about an instance before it is created', body: ValidateRequest, status: 200, response: ValidateResponse, readOnly: true },
  // The same data under /gatekeeper, the path other clients of this interface use.
  { id: 'gatekeeperViolations', method: 'GET', path: '/api/v1/gatekeeper/violations', auth: 'user', tag: 'compliance', summary: 'Current violations (same as /compliance/violations)', query: ViolationListQuery, status: 200, response: ViolationList },
  { id: 'gatekeeperConstraints', method: 'GET', path: '/api/v1/gatekeeper/constraints', auth: 'user', tag: 'compliance', summary: 'Constraints (same as /compliance/constraints)', query: ConstraintListQuery, status: 200, response: ConstraintList },
  { id: 'gatekeeperTemplates', method: 'GET', path: '/api/v1/gatekeeper/templates', auth: 'user', tag: 'compliance', summary: 'ConstraintTemplates (same as /compliance/templates)', query: CompliancePageQuery, status: 200, response: ConstraintTemplateList },
] as const satisfies readonly Omit<EnterpriseRouteDef, 'family'>[];

/** A compliance row (what the SDK calls). */
export type ComplianceRouteRow = (typeof rows)[number];
export type ComplianceRouteId = ComplianceRouteRow['id'];

/** §12.5 (without the history, which has its own rows), gated by the license feature `compliance`. */
export const complianceRoutes = rows.map((row) => ({
  ...row,
  feature: 'compliance' as const,
  family: row.path.startsWith('/api/v1/gatekeeper/') ? ('gatekeeper' as const) : ('compliance' as const),
})) as (ComplianceRouteRow & { feature: 'compliance'; family: 'compliance' | 'gatekeeper' })[];
