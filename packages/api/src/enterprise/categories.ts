import { z } from 'zod';
import { DnsLabel } from '../common.js';

export const IconType = z.enum(['lucide', 'svg']);

export const Category = z.object({
  name: z.string(),
  slug: z.string(),
  icon: z.string(),
  iconType: IconType,
  description: z.string(),
  weight: z.number().int(),
  count: z.number().int().describe('RGDs of this category the caller may see'),
});
export type Category = z.infer<typeof Category>;

export const CategoryList = z.object({ categories: z.array(Category) });
export type CategoryList = z.infer<typeof CategoryList>;

export const CategoryParams = z.object({ slug: DnsLabel });

const fields = {
  name: z.string().min(1).max(128),
  icon: z.string().max(16_384).optional().describe('a lucide icon name, or SVG markup when iconType is svg'),
  iconType: IconType.optional(),
  description: z.string().max(2_048).optional(),
  weight: z.number().int().min(-10_000).max(10_000).optional().describe('lower sorts first'),
};

export const CreateCategoryRequest = z.strictObject({ slug: DnsLabel, ...fields });
export type CreateCategoryRequest = z.infer<typeof CreateCategoryRequest>;

export const UpdateCategoryRequest = z.strictObject({ ...fields, name: fields.name.optional() });
export type UpdateCategoryRequest = z.infer<typeof UpdateCategoryRequest>;
