import type {
  ComplianceStatus,
  ComplianceSummary,
  Constraint,
  ConstraintList,
  ConstraintListQuery,
  ConstraintParams,
  ConstraintTemplate,
  ConstraintTemplateList,
  CompliancePageQuery,
  CreateConstraintRequest,
  EnforcementAction,
  ValidateRequest,
  ValidateResponse,
  Violation,
  ViolationList,
  ViolationListQuery,
} from '@portico/api/enterprise';
import type { z } from 'zod';
import type { CallOptions } from '../options.js';
import { paginateTotal } from '../paginate.js';
import type { Transport } from '../transport.js';

export type CompliancePageInput = Partial<CompliancePageQuery>;
export type ConstraintListInput = Partial<ConstraintListQuery>;
export type ViolationListInput = Partial<ViolationListQuery>;
/** What `createConstraint` takes: defaults (`enforcementAction: deny`, empty match) filled in by the server. */
export type CreateConstraintInput = z.input<typeof CreateConstraintRequest>;
export type ValidateInput = z.input<typeof ValidateRequest>;
/** A constraint is named by its kind and name (`K8sRequiredLabels/need-team`). */
export type ConstraintRef = z.input<typeof ConstraintParams>;

/** §12.5 compliance (Enterprise, license feature `compliance`): Gatekeeper's templates, constraints and violations. */
export interface ComplianceLiveApi {
  /** Whether Gatekeeper is installed and its objects read (the data routes answer 503 until it is). */
  status(opts?: CallOptions): Promise<ComplianceStatus>;
  /** Templates, constraints by enforcement, and the violations the caller may see. */
  summary(opts?: CallOptions): Promise<ComplianceSummary>;
  templates(query?: CompliancePageInput, opts?: CallOptions): Promise<ConstraintTemplateList>;
  /** Every ConstraintTemplate, page after page. */
  templatesAll(opts?: CallOptions): AsyncIterable<ConstraintTemplate>;
  template(name: string, opts?: CallOptions): Promise<ConstraintTemplate>;
  constraints(query?: ConstraintListInput, opts?: CallOptions): Promise<ConstraintList>;
  /** Every constraint matching `filter`, page after page. */
  constraintsAll(filter?: Omit<ConstraintListInput, 'page' | 'pageSize'>, opts?: CallOptions): AsyncIterable<Constraint>;
  /** One constraint with the violations the caller may see. */
  constraint(ref: ConstraintRef, opts?: CallOptions): Promise<Constraint>;
  /** Server Admin: a constraint of a template; every bad field is listed in the 400's `details.fields`. */
  createConstraint(input: CreateConstraintInput, opts?: CallOptions): Promise<Constraint>;
  /** Server Admin: `deny`, `warn` or `dryrun`; applies to the next create. */
  setEnforcement(ref: ConstraintRef, enforcementAction: EnforcementAction, opts?: CallOptions): Promise<Constraint>;
  /** One page of the current violations the caller may see. */
  violations(query?: ViolationListInput, opts?: CallOptions): Promise<ViolationList>;
  /** Every current violation matching `filter`, page after page. */
  violationsAll(filter?: Omit<ViolationListInput, 'page' | 'pageSize'>, opts?: CallOptions): AsyncIterable<Violation>;
  /** What the constraints in force say about an instance before it is created (`block`: the create would be refused). */
  validate(input: ValidateInput, opts?: CallOptions): Promise<ValidateResponse>;
}

export function complianceLiveApi(call: Transport): ComplianceLiveApi {
  const api: ComplianceLiveApi = {
    status: (opts) => call('complianceStatus', {}, opts),
    summary: (opts) => call('complianceSummary', {}, opts),
    templates: (query = {}, opts) => call('listConstraintTemplates', { query }, opts),
    templatesAll: (opts) => paginateTotal((page, pageSize) => api.templates({ page, pageSize }, opts)),
    template: (name, opts) => call('getConstraintTemplate', { params: { name } }, opts),
    constraints: (query = {}, opts) => call('listConstraints', { query }, opts),
    constraintsAll: (filter = {}, opts) => paginateTotal((page, pageSize) => api.constraints({ ...filter, page, pageSize }, opts)),
    constraint: ({ kind, name }, opts) => call('getConstraint', { params: { kind, name } }, opts),
    createConstraint: (input, opts) => call('createConstraint', { body: input }, opts),
    setEnforcement: ({ kind, name }, enforcementAction, opts) => call('setConstraintEnforcement', { params: { kind, name }, body: { enforcementAction } }, opts),
    violations: (query = {}, opts) => call('listViolations', { query }, opts),
    violationsAll: (filter = {}, opts) => paginateTotal((page, pageSize) => api.violations({ ...filter, page, pageSize }, opts)),
    validate: (input, opts) => call('validateCompliance', { body: input }, opts),
  };
  return api;
}
