import type { DomainEvent, EventsService } from '../types.js';
import type { Events, PublishOptions } from './events.js';

const isEvents = (events: EventsService): events is Events => typeof (events as Events).publishAll === 'function';

/**
 * Publishes the events of one change through any EventsService: in one message with one claim when it is ours
 * (createEvents), one by one otherwise (a plain EventsService cannot dedupe at the source).
 */
export async function publishAll(events: EventsService, list: DomainEvent[], opts: PublishOptions = {}): Promise<void> {
  if (list.length === 0) return;
  if (isEvents(events)) return events.publishAll(list, opts);
  for (const event of list) await events.publish(event);
}
