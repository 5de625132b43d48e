import type { Database } from '../db/health.js';

/** A seat is a distinct user seen in this window (contract §12.1). */
const SEAT_WINDOW_DAYS = 30;
/** A user's activity is written at most this often per replica: one row update per user per minute. */
const TOUCH_EVERY_MS = 60_000;
const REFRESH_EVERY_MS = 30_000;

export interface Seats {
  /** Notes that `userId` used the API now; cheap and never throws (seats are a count, not a gate). */
  touch(userId: string): void;
  /** The last known count of distinct users active in the window. */
  used(): number;
  /** Counts again from PostgreSQL. */
  refresh(): Promise<number>;
  stop(): void;
}

export function createSeats(db: Pick<Database, 'use'>, opts: { now?: () => number } = {}): Seats {
  const now = opts.now ?? Date.now;
  const lastTouched = new Map<string, number>();
  let count = 0;

  const refresh = () =>
    db.use(async (pool) => {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM user_activity WHERE last_seen > now() - make_interval(days => $1)`, [SEAT_WINDOW_DAYS]);
      count = rows[0]?.n ?? 0;
      return count;
    });
  let recount: NodeJS.Timeout | undefined;
  const recountSoon = () => {
    recount ??= setTimeout(() => {
      recount = undefined;
      void refresh().catch(() => {});
    }, 1_000);
    recount.unref();
  };
  const timer = setInterval(() => void refresh().catch(() => {}), REFRESH_EVERY_MS);
  timer.unref();

  return {
    touch(userId) {
      const at = now();
      const last = lastTouched.get(userId);
      if (last !== undefined && at - last < TOUCH_EVERY_MS) return;
      lastTouched.set(userId, at);
      // Bounded: a replica remembers at most this many users between refreshes.
      if (lastTouched.size > 100_000) lastTouched.clear();
      db.use((pool) => pool.query(`INSERT INTO user_activity (user_id, last_seen) VALUES ($1, now()) ON CONFLICT (user_id) DO UPDATE SET last_seen = now()`, [userId]))
        // A user this replica had not seen may be a new seat: recount soon, once for a burst of them.
        .then(() => {
          if (last === undefined) recountSoon();
        })
        .catch(() => lastTouched.delete(userId));
    },
    used: () => count,
    refresh,
    stop: () => {
      clearInterval(timer);
      clearTimeout(recount);
    },
  };
}
