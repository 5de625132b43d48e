import type { KubeObject, ResourceRef } from '@portico/core';
import type { Category, CreateCategoryRequest } from '@portico/api/enterprise';
import { defaultIcon, servedIcon } from './icon.js';

/** `portico.dev/v1alpha1 Category`, cluster-scoped: GitOps can manage categories like any manifest. */
export const categoryResource: ResourceRef = { group: 'portico.dev', version: 'v1alpha1', kind: 'Category', plural: 'categories', namespaced: false };

/** What a category looks like when nobody defined it (one used only by RGD annotations). */
export const categoryDefaults = { ...defaultIcon, description: '', weight: 100 } as const;

/** RGDs name their category freely ("Data Stores"); its slug is the DNS label the API addresses it by. */
export const slugOf = (category: string) =>
  category
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63) || 'uncategorized';

export function categoryFromObject(object: KubeObject, count: number): Category {
  const spec = (object.spec ?? {}) as Record<string, unknown>;
  const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
  // An SVG set around the API (kubectl, GitOps) is served only if it passes the same check as one set through it.
  const { icon, iconType } = servedIcon(text(spec.icon, categoryDefaults.icon), spec.iconType === 'svg' ? 'svg' : 'lucide');
  return {
    slug: object.metadata.name,
    name: text(spec.name, object.metadata.name),
    icon,
    iconType,
    description: text(spec.description, ''),
    weight: typeof spec.weight === 'number' && Number.isInteger(spec.weight) ? spec.weight : categoryDefaults.weight,
    count,
  };
}

export const categoryObject = (input: CreateCategoryRequest): KubeObject => ({
  apiVersion: 'portico.dev/v1alpha1',
  kind: 'Category',
  metadata: { name: input.slug, labels: { 'app.kubernetes.io/managed-by': 'portico' } },
  spec: {
    name: input.name,
    icon: input.icon ?? categoryDefaults.icon,
    iconType: input.iconType ?? categoryDefaults.iconType,
    description: input.description ?? '',
    weight: input.weight ?? categoryDefaults.weight,
  },
});
