import { sanitizeSvg, validationFailed } from '@portico/core';

export type IconType = 'lucide' | 'svg';

/** The icon of a category that names none, and the one served in place of an SVG the check refuses. */
export const defaultIcon = { icon: 'folder', iconType: 'lucide' } as const;

/**
 * The icon a category may store (§12.3, §11.5): an SVG must pass the allow-list check (no script, no event
 * handlers, no external references or `javascript:`, no DOCTYPE/entities, at most 64 KiB) and is stored as the
 * check serialised it; anything else is 400 naming `icon` and the reason. A lucide icon is a name, kept as given.
 */
export function checkedIcon(icon: string, iconType: IconType): string {
  if (iconType !== 'svg') return icon;
  const result = sanitizeSvg(icon);
  if (!result.ok) throw validationFailed({ icon: `the SVG is refused: ${result.reason}` }, `category icon refused: ${result.reason}`);
  return result.svg;
}

/** Answers of the check for the SVGs categories hold, so a list does not parse them again per request. */
const served = new Map<string, string | undefined>();
const MAX_SERVED = 500;

/**
 * A category's icon as it is served: a Category written around the API (kubectl, GitOps) holds whatever SVG it was
 * given, so an SVG that fails the check is not served; the default icon stands in.
 */
export function servedIcon(icon: string, iconType: IconType): { icon: string; iconType: IconType } {
  if (iconType !== 'svg') return { icon, iconType };
  let svg = served.get(icon);
  if (svg === undefined && !served.has(icon)) {
    const result = sanitizeSvg(icon);
    svg = result.ok ? result.svg : undefined;
    if (served.size >= MAX_SERVED) served.delete(served.keys().next().value!);
    served.set(icon, svg);
  }
  return svg === undefined ? { ...defaultIcon } : { icon: svg, iconType };
}
