import { z } from 'zod';
import { DeploymentMode, Labels, PageQuery, Timestamp, listOf } from './common.js';
import { LabelSelector } from './label-selector.js';

export const Rgd = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  icon: z.string().optional(),
  docsUrl: z.string().optional(),
  labels: Labels,
  apiVersion: z.string(),
  kind: z.string(),
  extendsKinds: z.array(z.string()),
  allowedDeploymentModes: z.array(DeploymentMode),
  isClusterScoped: z.boolean(),
  status: z.string(),
  instances: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The newest revision number of the RGD's spec (§11.1); 0 until the first is recorded. */
  lastIssuedRevision: z.number().int(),
});
export type Rgd = z.infer<typeof Rgd>;

/** A JSON Schema object (draft 2020-12 subset) translated from kro's simple schema. */
export const JsonSchema = z.record(z.string(), z.unknown());

export const RgdDetail = Rgd.extend({
  schema: JsonSchema,
  resources: z.array(z.object({ id: z.string(), kind: z.string().optional(), dependsOn: z.array(z.string()) })),
});
export type RgdDetail = z.infer<typeof RgdDetail>;

export const RgdSortBy = z.enum(['name', 'createdAt', 'updatedAt', 'category']);

export const RgdListQuery = z.object({
  category: z.string().max(253).optional(),
  search: z.string().max(256).optional(),
  extendsKind: z.string().max(253).optional(),
  tags: z.string().max(1024).optional().describe('comma list; an RGD matches when it has every tag'),
  status: z.string().max(64).optional(),
  project: z.string().max(63).optional(),
  labelSelector: LabelSelector.optional(),
  ...PageQuery,
  sortBy: RgdSortBy.default('name'),
});
export type RgdListQuery = z.infer<typeof RgdListQuery>;

export const RgdList = listOf(Rgd);
export type RgdList = z.infer<typeof RgdList>;

export const RgdFilters = z.object({
  categories: z.array(z.string()),
  tags: z.array(z.string()),
  projects: z.array(z.string()),
});
export type RgdFilters = z.infer<typeof RgdFilters>;

/** Annotation prefixes of catalog metadata; the second is the accepted alias. */
export const catalogPrefixes = ['portico.dev', 'knodex.io'] as const;
