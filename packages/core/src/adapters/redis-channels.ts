import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { Connection, RedisConnections } from './redis-connection.js';

interface ChannelState {
  handlers: Set<(message: string) => void>;
  gapHandlers: Set<() => void>;
  subscribed: Promise<void>;
}

interface RedisChannels {
  subscribe: KeyValue['subscribe'];
  clear(): void;
}

/**
 * Pub/sub over the subscriptions connection: one Redis subscription per channel, shared by its handlers.
 * ioredis re-subscribes after a reconnect, but what was published while the connection was down is gone:
 * subscribers that asked are told (their gap handler), so they can make up for it.
 */
export function createRedisChannels(sub: Connection, run: RedisConnections['run'], prefix: string, logger: Logger, closing: () => boolean): RedisChannels {
  const channels = new Map<string, ChannelState>();

  let subscriberWasDown = false;
  sub.client.on('close', () => {
    if (!closing()) subscriberWasDown = true;
  });
  sub.client.on('ready', () => {
    if (!subscriberWasDown) return;
    subscriberWasDown = false;
    for (const state of channels.values()) {
      for (const onGap of [...state.gapHandlers]) {
        try {
          onGap();
        } catch (err) {
          logger.error({ err: String(err) }, 'redis key-value: gap handler threw');
        }
      }
    }
  });

  sub.client.on('message', (prefixed: string, message: string) => {
    if (!prefixed.startsWith(prefix)) return;
    for (const handler of [...(channels.get(prefixed.slice(prefix.length))?.handlers ?? [])]) {
      try {
        handler(message);
      } catch (err) {
        logger.error({ err: String(err), channel: prefixed }, 'redis key-value: subscriber threw');
      }
    }
  });

  return {
    async subscribe(channel, onMessage, onGap): Promise<Disposable> {
      const handler = (message: string) => onMessage(message);
      const gapHandler = onGap ? () => onGap() : undefined;
      let state = channels.get(channel);
      if (!state) {
        const created: ChannelState = {
          handlers: new Set(),
          gapHandlers: new Set(),
          subscribed: run(sub, 'SUBSCRIBE', (c) => c.subscribe(prefix + channel)).then(() => undefined),
        };
        state = created;
        channels.set(channel, created);
        created.subscribed.catch(() => {
          if (channels.get(channel) === created) channels.delete(channel);
        });
      }
      state.handlers.add(handler);
      if (gapHandler) state.gapHandlers.add(gapHandler);
      try {
        await state.subscribed;
      } catch (err) {
        state.handlers.delete(handler);
        if (gapHandler) state.gapHandlers.delete(gapHandler);
        throw err;
      }
      const subscribed = state;
      return {
        close() {
          if (gapHandler) subscribed.gapHandlers.delete(gapHandler);
          if (!subscribed.handlers.delete(handler) || subscribed.handlers.size > 0) return;
          if (channels.get(channel) === subscribed) channels.delete(channel);
          // If Redis is down this fails; a stale subscription only delivers messages nobody listens to.
          if (sub.client.status === 'ready') sub.client.unsubscribe(prefix + channel).catch(() => undefined);
        },
      };
    },

    clear: () => channels.clear(),
  };
}
