import { z } from 'zod';
import { DnsLabel, PageQuery } from '../common.js';
import { RgdList, RgdSortBy } from '../rgds.js';

export const ViewFilter = z.strictObject({
  categories: z.array(z.string().min(1).max(253)).max(50).default([]).describe('any of these (name or slug, case-insensitive)'),
  tags: z.array(z.string().min(1).max(128)).max(50).default([]).describe('every one of these'),
  search: z.string().max(256).optional().describe('in name, title or description'),
  extendsKind: z.string().max(253).optional(),
  projects: z.array(DnsLabel).max(50).default([]).describe('RGDs of any of these projects'),
});
export type ViewFilter = z.infer<typeof ViewFilter>;

export const View = z.object({
  slug: z.string(),
  name: z.string(),
  icon: z.string(),
  description: z.string(),
  order: z.number().int(),
  shared: z.boolean(),
  owner: z.string(),
  filter: ViewFilter,
  count: z.number().int().describe('RGDs matching the filter that the caller may see'),
});
export type View = z.infer<typeof View>;

export const ViewList = z.object({ items: z.array(View), totalCount: z.number().int() });
export type ViewList = z.infer<typeof ViewList>;

export const ViewDetail = View.extend({ rgds: RgdList });
export type ViewDetail = z.infer<typeof ViewDetail>;

export const ViewParams = z.object({ slug: DnsLabel });

export const ViewDetailQuery = z.object({ ...PageQuery, sortBy: RgdSortBy.default('name') });
export type ViewDetailQuery = z.infer<typeof ViewDetailQuery>;

const fields = {
  name: z.string().min(1).max(128),
  icon: z.string().max(16_384).default(''),
  description: z.string().max(2_048).default(''),
  order: z.number().int().min(-10_000).max(10_000).default(0),
  shared: z.boolean().default(false).describe('visible to everybody; creating or changing one needs a Server Admin'),
  filter: ViewFilter.default({ categories: [], tags: [], projects: [] }),
};

export const CreateViewRequest = z.strictObject({ slug: DnsLabel, ...fields });
export type CreateViewRequest = z.infer<typeof CreateViewRequest>;

export const UpdateViewRequest = z.strictObject({
  name: fields.name.optional(),
  icon: z.string().max(16_384).optional(),
  description: z.string().max(2_048).optional(),
  order: z.number().int().min(-10_000).max(10_000).optional(),
  shared: z.boolean().optional(),
  filter: ViewFilter.optional(),
});
export type UpdateViewRequest = z.infer<typeof UpdateViewRequest>;
