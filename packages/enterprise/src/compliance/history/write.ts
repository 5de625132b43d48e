import type { Queryable } from '../../audit/db.js';
import type { CurrentViolation } from './change.js';


/**
 * Opens an active row for each violation that has none, in one statement; for one that has, an `add` carries
 * the enforcement now in force (its constraint's enforcement changed), kept unless a later one is stored. Two replicas recording the same
 * `add` race on the unique index of active keys: one inserts, the other's row is dropped by ON CONFLICT.
 * An `add` observed before the key's latest resolution is a late copy of an episode another replica has
 * already recorded and closed, so it opens nothing (this is what keeps a slow replica from re-opening it).
 * Either way a copy observed before its episode's first_seen moves it back (`backdateEpisodes`), so a row says
 * when any replica first saw the violation, whichever replica's batch committed first. The backdate runs after
 * the insert: by then the row exists, whoever wrote it (ON CONFLICT waits for another replica's insert to
 * commit); run before, it could find no row yet and the other replica's later first_seen would stay.
 * Returns how many rows were opened or changed.
 */
export async function openViolations(db: Queryable, adds: readonly CurrentViolation[]): Promise<number> {
  if (adds.length === 0) return 0;
  const column = <T>(pick: (v: CurrentViolation) => T) => adds.map(pick);
  const { rowCount } = await db.query(
    `INSERT INTO violation_history (key, constraint_kind, constraint_name, resource_kind, resource_namespace, resource_name,
       enforcement_action, message, project, first_seen, enforcement_seen, status)
     SELECT c.key, c.ck, c.cn, c.rk, c.rns, c.rn, c.ea, c.msg, c.project, c.seen, c.seen, 'active'
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[])
       AS c(key, ck, cn, rk, rns, rn, ea, msg, project, seen)
     WHERE NOT EXISTS (SELECT 1 FROM violation_history h WHERE h.key = c.key AND h.resolved_at >= c.seen)
     ON CONFLICT (key) WHERE status = 'active' DO UPDATE
       SET enforcement_action = EXCLUDED.enforcement_action, enforcement_seen = EXCLUDED.enforcement_seen
       WHERE violation_history.enforcement_seen < EXCLUDED.enforcement_seen
         AND violation_history.enforcement_action <> EXCLUDED.enforcement_action`,
    [
      column((v) => v.key),
      column((v) => v.constraintKind),
      column((v) => v.constraintName),
      column((v) => v.resource.kind),
      column((v) => v.resource.namespace ?? ''),
      column((v) => v.resource.name),
      column((v) => v.enforcementAction),
      column((v) => v.message),
      column((v) => v.project ?? null),
      column((v) => v.observedAt),
    ],
  );
  return (rowCount ?? 0) + (await backdateEpisodes(db, adds));
}

/**
 * The episode an `add` belongs to is the key's first one not resolved before it was observed (resolved since, or
 * still active). A copy observed before that episode's first_seen, from a replica that saw the violation appear
 * earlier than the one that wrote the row, moves first_seen back to the earliest copy.
 */
async function backdateEpisodes(db: Queryable, adds: readonly CurrentViolation[]): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE violation_history h SET first_seen = t.seen
     FROM (SELECT episode.id, min(c.seen) AS seen
             FROM unnest($1::text[], $2::timestamptz[]) AS c(key, seen)
             CROSS JOIN LATERAL (SELECT x.id FROM violation_history x
                                  WHERE x.key = c.key AND (x.resolved_at >= c.seen OR x.status = 'active')
                                  ORDER BY x.resolved_at NULLS LAST LIMIT 1) AS episode
            GROUP BY episode.id) AS t
     WHERE h.id = t.id AND h.first_seen > t.seen`,
    [adds.map((v) => v.key), adds.map((v) => v.observedAt)],
  );
  return rowCount ?? 0;
}

/**
 * Resolves the active row of each key, at the time the `delete` was observed. Two replicas recording the same
 * `delete`: the second's UPDATE waits for the first's row lock, then finds the row no longer active. A
 * `delete` observed before the active row was first seen belongs to an earlier episode and leaves it alone.
 */
export async function resolveViolations(db: Queryable, deletes: readonly { key: string; observedAt: string }[]): Promise<number> {
  if (deletes.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE violation_history h SET status = 'resolved', resolved_at = c.seen
     FROM unnest($1::text[], $2::timestamptz[]) AS c(key, seen)
     WHERE h.key = c.key AND h.status = 'active' AND h.first_seen <= c.seen`,
    [deletes.map((d) => d.key), deletes.map((d) => d.observedAt)],
  );
  return rowCount ?? 0;
}

/**
 * Brings the table in line with the violations in force now (after a restart or an outage): opens rows for
 * those without one, and resolves, as of `now`, active rows whose violation is gone — it ended while no
 * replica was recording, so the moment this replica noticed is the best known.
 */
export async function reconcileViolations(db: Queryable, current: readonly CurrentViolation[], now: Date): Promise<{ opened: number; resolved: number }> {
  const opened = await openViolations(db, current);
  const { rowCount } = await db.query(
    `UPDATE violation_history SET status = 'resolved', resolved_at = $2
     WHERE status = 'active' AND first_seen <= $2 AND NOT (key = ANY($1::text[]))`,
    [current.map((v) => v.key), now.toISOString()],
  );
  return { opened, resolved: rowCount ?? 0 };
}
