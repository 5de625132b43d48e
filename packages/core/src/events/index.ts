export { createEvents, eventsChannel, claimTtlMs } from './events.js';
export type { Events, PublishedEvent, PublishOptions } from './events.js';
export { publishAll } from './publish.js';
export { publishCatalogChanges } from './catalog-events.js';
