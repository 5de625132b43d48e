import { describe, expect, it } from 'vitest';
import { PorticoApiError, type PorticoClient } from '@portico/client';
import type { App } from '../src/app.js';
import { followInstance } from '../src/commands/follow.js';

const ref = { kind: 'WebApp', name: 'hist', namespace: 'dev' };
const update = (action: 'update' | 'delete') => ({ type: 'instance_update', data: { action, kind: 'WebApp', name: 'hist', namespace: 'dev' } });

/** A client whose event stream yields `messages` and then stays open until the watch stops reading. */
function clientWith(messages: unknown[]): PorticoClient {
  return {
    events: {
      subscribe: () =>
        (async function* () {
          yield* messages;
          await new Promise(() => {});
        })(),
    },
  } as unknown as PorticoClient;
}

const app = (errors: string[]): App => ({ io: { out: () => {}, err: (t: string) => void errors.push(t) } }) as unknown as App;

describe('watching one instance', () => {
  it('ends quietly when the read after a change finds the instance already gone, before its deletion arrives', async () => {
    const errors: string[] = [];
    let reads = 0;
    const show = async () => {
      reads += 1;
      if (reads > 1) throw new PorticoApiError({ status: 404, code: 'NOT_FOUND', message: 'instance "dev/WebApp/hist" not found' });
    };
    await expect(followInstance(app(errors), clientWith([update('update'), update('delete')]), ref, show)).resolves.toBeUndefined();
    expect([reads, errors]).toEqual([2, []]);
  });

  it('any other failure of a read still ends the watch with that error', async () => {
    const show = async () => {
      throw new PorticoApiError({ status: 503, code: 'SERVICE_UNAVAILABLE', message: 'down' });
    };
    let first = true;
    const once = async () => {
      if (first) return void (first = false);
      return show();
    };
    await expect(followInstance(app([]), clientWith([update('update')]), ref, once)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
