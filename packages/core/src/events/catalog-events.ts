import type * as api from '@portico/api';
import { toRgd, type Catalog } from '../catalog/index.js';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { DomainEvent, EventsService } from '../types.js';
import { publishAll } from './publish.js';

/**
 * Turns catalog changes into `rgd_update` (plus `counts_changed`, since the caller's RGD count may move).
 * The RGD in the event carries `instances: 0`: an event is serialised once for every receiver, and a per-caller
 * count cannot be in it; receivers get their own counts in the `counts_update` that follows.
 * Visibility is decided per receiver at send time (the catalog's rule), so `object` is left out.
 */
export function publishCatalogChanges(catalog: Pick<Catalog, 'onChange'>, events: EventsService, logger: Logger): Disposable {
  return catalog.onChange((action, entry) => {
    const update: api.RgdUpdate = { action, name: entry.name, rgd: toRgd(entry, 0) };
    const list: DomainEvent[] = [
      { type: 'rgd_update', name: entry.name, ...(entry.project ? { project: entry.project } : {}), data: update },
      { type: 'counts_changed', data: {} },
    ];
    // Replicas watching one cluster see the same RGD version and revision number: one of them publishes.
    publishAll(events, list, { claim: `rgd:${entry.name}:${entry.revision}:${entry.lastIssuedRevision}:${action}` }).catch((err) =>
      logger.warn({ err, rgd: entry.name }, 'could not publish catalog events'),
    );
  });
}

/**
 * Turns recorded RGD revisions into `revision_update` (§11.1), for those who may see the RGD (the catalog's rule,
 * decided per receiver at send time like `rgd_update`). Every replica learns of a revision; the claim names it
 * the same everywhere, so one of them publishes.
 */
export function publishRevisionChanges(catalog: Pick<Catalog, 'onRevision'>, events: EventsService, logger: Logger): Disposable {
  return catalog.onRevision((notice) => {
    const update: api.RevisionUpdate = { action: notice.action, rgdName: notice.rgdName, revision: notice.revision, ...(notice.project ? { projectId: notice.project } : {}) };
    const event: DomainEvent = { type: 'revision_update', name: notice.rgdName, ...(notice.project ? { project: notice.project } : {}), data: update };
    publishAll(events, [event], { claim: notice.claim }).catch((err) => logger.warn({ err, rgd: notice.rgdName }, 'could not publish a revision event'));
  });
}
