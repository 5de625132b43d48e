import { z } from 'zod';
import { Timestamp } from './common.js';
import { Rgd } from './rgds.js';

/**
 * One field of a deploy form, from the RGD's schema: the JSON Schema keywords a form renders, plus
 * `propertyOrder` (the order the RGD's simple schema declares the fields in, which JSON objects do not keep).
 */
export const FormProperty = z.object({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  enum: z.array(z.unknown()).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  pattern: z.string().optional(),
  format: z.string().optional(),
  get items() {
    return FormProperty.optional();
  },
  get properties() {
    return z.record(z.string(), FormProperty).optional();
  },
  required: z.array(z.string()).optional(),
  propertyOrder: z.array(z.string()).optional(),
  get additionalProperties() {
    return z.union([z.boolean(), FormProperty]).optional();
  },
});
export type FormProperty = z.infer<typeof FormProperty>;

export const FormSchema = z.object({
  name: z.string(),
  namespace: z.string(),
  group: z.string(),
  version: z.string(),
  kind: z.string(),
  isClusterScoped: z.boolean(),
  description: z.string(),
  properties: z.record(z.string(), FormProperty),
  required: z.array(z.string()),
  propertyOrder: z.array(z.string()),
});
export type FormSchema = z.infer<typeof FormSchema>;

export const RgdSchemaResponse = z.object({ rgd: Rgd, schema: FormSchema, crdFound: z.boolean() });
export type RgdSchemaResponse = z.infer<typeof RgdSchemaResponse>;

export const RgdGraphResource = z.object({
  id: z.string(),
  apiVersion: z.string(),
  kind: z.string(),
  isTemplate: z.boolean(),
  isConditional: z.boolean(),
  isCollection: z.boolean(),
  dependsOn: z.array(z.string()),
  readyWhen: z.array(z.string()),
  includeWhen: z.array(z.string()),
});
export type RgdGraphResource = z.infer<typeof RgdGraphResource>;

/** `from` is the resource read, `to` the one whose `${…}` expression reads it (creation order). */
export const RgdGraphEdge = z.object({ from: z.string(), to: z.string(), type: z.literal('reference') });

export const RgdGraph = z.object({
  rgdName: z.string(),
  rgdNamespace: z.string(),
  resources: z.array(RgdGraphResource),
  edges: z.array(RgdGraphEdge),
});
export type RgdGraph = z.infer<typeof RgdGraph>;

/** A condition of a revision: the RGD's own conditions while it is the newest, as kro reports them. */
export const RevisionCondition = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type RevisionCondition = z.infer<typeof RevisionCondition>;

/**
 * One recorded version of an RGD's `spec` (contract §11.1), numbered 1, 2, … per RGD; `contentHash` is the
 * sha256 (hex) of the spec's canonical JSON (keys sorted), so equal specs have equal hashes.
 */
export const GraphRevision = z.object({
  revisionNumber: z.number().int().min(1),
  rgdName: z.string(),
  namespace: z.literal(''),
  conditions: z.array(RevisionCondition),
  contentHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: Timestamp,
  createdBy: z.string().optional(),
});
export type GraphRevision = z.infer<typeof GraphRevision>;

/** Newest first. */
export const GraphRevisionList = z.object({ items: z.array(GraphRevision), totalCount: z.number().int() });
export type GraphRevisionList = z.infer<typeof GraphRevisionList>;

/** A revision with the RGD `spec` as it was. */
export const GraphRevisionDetail = GraphRevision.extend({ snapshot: z.record(z.string(), z.unknown()) });
export type GraphRevisionDetail = z.infer<typeof GraphRevisionDetail>;

/** One difference: `path` is dotted (`schema.spec.replicas`); absent values are absent, not null. */
export const DiffField = z.object({ path: z.string(), oldValue: z.unknown().optional(), newValue: z.unknown().optional() });
export type DiffField = z.infer<typeof DiffField>;

/** What changed from `rev1` to `rev2` (`rev1 < rev2`): maps compared key by key, arrays as whole values. */
export const RevisionDiff = z.object({
  rgdName: z.string(),
  rev1: z.number().int(),
  rev2: z.number().int(),
  added: z.array(DiffField),
  removed: z.array(DiffField),
  modified: z.array(DiffField),
  identical: z.boolean(),
});
export type RevisionDiff = z.infer<typeof RevisionDiff>;

/** A revision number in a path: decimal digits only (`1.5`, `abc`, `-1` are 400). */
const RevisionNumber = z
  .string()
  .regex(/^[0-9]{1,9}$/, 'must be a revision number (decimal digits)')
  .transform(Number)
  .meta({ openapi: { type: 'integer', minimum: 0 } });

const RgdName = z.string().min(1).max(253);
export const RevisionParams = z.object({ name: RgdName, n: RevisionNumber });
export const RevisionDiffParams = z.object({ name: RgdName, a: RevisionNumber, b: RevisionNumber });
