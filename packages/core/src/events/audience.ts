import type { Actor } from '../actor.js';
import type { Authorizer, DomainEvent } from '../types.js';
import type { Principal } from './decisions.js';

/** Whoever may receive events: a socket, a stream, a test probe; known to policy by its principal. */
export interface Recipient {
  readonly principal: Principal;
}

/**
 * Which connections could possibly see an event of a project: its members and the Server Admins. Anyone else
 * holds no role there, so the policy engine would deny them anyway; skipping them keeps the per-event work
 * proportional to a project's audience instead of to every open socket. The final say is still `can` at send
 * time. Membership is re-read from the authorizer on every policy change (its onChange runs right after the
 * new policies are swapped in), so this never lags behind the policy it pre-filters for.
 */
interface Audience<Connection extends Recipient> {
  add(conn: Connection): void;
  remove(conn: Connection): void;
  /** Re-reads every connection's memberships (after a policy change). */
  refresh(): void;
  /** Connections to consider for an event: the project's members and admins, or everyone for project-less events. */
  candidates(event: DomainEvent): Iterable<Connection>;
  /** Every connection (events of registered streams, decided one by one). */
  everyone(): Iterable<Connection>;
}

export function createAudience<Connection extends Recipient>(authz: Authorizer): Audience<Connection> {
  const all = new Set<Connection>();
  const admins = new Set<Connection>();
  const byProject = new Map<string, Set<Connection>>();
  const projectsOf = new Map<Connection, readonly string[]>();

  const unlink = (conn: Connection) => {
    admins.delete(conn);
    for (const p of projectsOf.get(conn) ?? []) {
      const set = byProject.get(p);
      set?.delete(conn);
      if (set?.size === 0) byProject.delete(p);
    }
    projectsOf.delete(conn);
  };

  const link = (conn: Connection, actor: Actor) => {
    if (authz.isServerAdmin(actor)) admins.add(conn);
    const projects = authz.memberProjects(actor);
    projectsOf.set(conn, projects);
    for (const p of projects) {
      let set = byProject.get(p);
      if (!set) byProject.set(p, (set = new Set()));
      set.add(conn);
    }
  };

  return {
    add(conn) {
      all.add(conn);
      link(conn, conn.principal.actor);
    },
    remove(conn) {
      all.delete(conn);
      unlink(conn);
    },
    refresh() {
      for (const conn of all) {
        unlink(conn);
        link(conn, conn.principal.actor);
      }
    },
    everyone: () => all,
    candidates(event) {
      if (event.project === undefined || event.type === 'rgd_update') return all;
      const members = byProject.get(event.project) ?? none;
      // The common case (no Server Admin connected) hands out the member set itself: nothing to merge.
      return admins.size === 0 ? members : withAdmins(admins, members);
    },
  };
}

const none: ReadonlySet<never> = new Set();

function* withAdmins<Connection>(admins: ReadonlySet<Connection>, members: ReadonlySet<Connection>): Generator<Connection> {
  yield* admins;
  for (const conn of members) if (!admins.has(conn)) yield conn;
}
