export { createEvents, eventsChannel, claimTtlMs } from './events.js';
export type { Events, PublishedEvent, PublishOptions } from './events.js';
export { publishAll } from './publish.js';
export { publishCatalogChanges } from './catalog-events.js';
export { createEventAudience, eventResourceType } from './visibility.js';
export type { EventAudience, EventResourceType, EventStream } from './visibility.js';
export type { Recipient } from './audience.js';
export { createPrincipals } from './decisions.js';
export type { Principal, Principals } from './decisions.js';
