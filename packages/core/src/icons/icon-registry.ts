import { createInformer } from '../cluster/informer.js';
import type { Informer, InformerEvent } from '../cluster/informer-types.js';
import { notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import type { IconsService } from '../types.js';
import { genericIcons } from './generic-icons.js';
import { sanitizeSvg } from './sanitize-svg.js';

/** The labels that make a ConfigMap in Portico's namespace an icon registry; the second is the field's alias. */
export const iconRegistryLabels = ['portico.dev/icon-registry', 'knodex.io/icon-registry'] as const;

const SLUG = /^[a-z0-9:-]+$/;

const isRegistry = (cm: KubeObject) => iconRegistryLabels.some((label) => cm.metadata.labels?.[label] === 'true');

/**
 * A ConfigMap key as a slug. Keys may not hold `:` in Kubernetes, so a key `cat.<category>` stands for the slug
 * `cat:<category>` (a category icon); a trailing `.svg` is dropped. Undefined: not a slug.
 */
export function slugOfKey(key: string): string | undefined {
  const bare = key.endsWith('.svg') ? key.slice(0, -'.svg'.length) : key;
  const slug = bare.startsWith('cat.') ? `cat:${bare.slice('cat.'.length)}` : bare;
  return SLUG.test(slug) && slug.length <= 253 ? slug : undefined;
}

/**
 * Icons from ConfigMaps labelled `portico.dev/icon-registry: "true"` (or `knodex.io/icon-registry`) in Portico's
 * namespace, followed with an informer so a change applies on every replica within moments, without a restart.
 * Every SVG passes the allow-list check before it is kept; one that does not is logged and skipped (the rest of
 * its ConfigMap still counts). Where two registries give one slug, the ConfigMap first by name wins; a registry
 * icon wins over Portico's generic one of the same slug.
 */
export function createIconRegistry(deps: { cluster: Cluster; namespace: string; logger: Logger }): IconsService {
  const logger = deps.logger.child({ module: 'icons' });
  let informer: Informer | undefined;
  /** Accepted icons per registry ConfigMap name. */
  const registries = new Map<string, Map<string, string>>();
  let merged = new Map<string, string>();

  const accept = (cm: KubeObject): Map<string, string> => {
    const icons = new Map<string, string>();
    for (const [key, text] of Object.entries(cm.data ?? {})) {
      const slug = slugOfKey(key);
      const where = { configMap: cm.metadata.name, key };
      if (!slug) {
        logger.warn(where, 'icon skipped: the key is not a slug ([a-z0-9-], "cat." for category icons, optional ".svg")');
        continue;
      }
      const checked = sanitizeSvg(text);
      if (!checked.ok) {
        logger.warn({ ...where, slug, reason: checked.reason }, 'icon refused by the SVG check');
        continue;
      }
      icons.set(slug, checked.svg);
    }
    logger.info({ configMap: cm.metadata.name, icons: icons.size }, 'icon registry loaded');
    return icons;
  };

  const remerge = () => {
    const next = new Map<string, string>();
    for (const name of [...registries.keys()].sort()) {
      for (const [slug, svg] of registries.get(name)!) if (!next.has(slug)) next.set(slug, svg);
    }
    merged = next;
  };

  const onEvent = (event: InformerEvent) => {
    const { name } = event.object.metadata;
    if (event.type !== 'DELETED' && isRegistry(event.object)) registries.set(name, accept(event.object));
    else if (!registries.delete(name)) return; // neither was nor is a registry: nothing changes
    remerge();
  };

  return {
    get(slug) {
      // Own keys only: `constructor` is a well-formed slug, and no icon.
      const svg = merged.get(slug) ?? (Object.hasOwn(genericIcons, slug) ? genericIcons[slug] : undefined);
      if (svg === undefined) throw notFound('icon', slug);
      return svg;
    },
    start() {
      if (informer) return;
      informer = createInformer(deps.cluster, resources.configMap, { namespace: deps.namespace, logger });
      informer.on(onEvent);
      informer.start().catch((err: unknown) => logger.warn({ err: String(err) }, 'icon registry informer did not start'));
    },
    stop() {
      informer?.stop();
    },
  };
}
