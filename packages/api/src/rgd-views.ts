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

export const RgdRevision = z.object({
  revision: z.number().int(),
  resourceVersion: z.string(),
  changedAt: Timestamp,
  changedBy: z.string().optional(),
  summary: z.string(),
});
export type RgdRevision = z.infer<typeof RgdRevision>;

export const RgdRevisionList = z.object({ items: z.array(RgdRevision), totalCount: z.number().int() });
export type RgdRevisionList = z.infer<typeof RgdRevisionList>;
