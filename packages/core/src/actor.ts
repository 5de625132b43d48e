import { rbacSubject } from '@portico/api';

/** The authenticated caller, from a verified token; roles are never part of it (evaluated per request). */
export interface Actor {
  /** Subject id: local username or the identity provider's `sub`. */
  id: string;
  /** Casbin subject: `user:<id>`. */
  subject: string;
  email: string;
  displayName: string;
  groups: string[];
  /** Token facts, for account info and revocation. */
  tokenId: string;
  issuer: string;
  issuedAt: Date;
  expiresAt: Date;
  local: boolean;
  /** Local accounts: the identity generation the token was issued for (a re-created namesake has another). */
  generation?: string;
  /**
   * A project token (§14): the actor is the role itself (`subject` is `proj:<project>:<role>`), holds what that
   * role permits in that project and nothing global, and is valid only while the token's record and the role are.
   */
  projectToken?: ProjectTokenScope;
}

export interface ProjectTokenScope {
  project: string;
  role: string;
}

/** Subjects an actor speaks for in policy: itself and each of its groups. */
export const actorSubjects = (actor: Pick<Actor, 'subject' | 'groups'>): string[] => [
  actor.subject,
  ...actor.groups.map(rbacSubject.group),
];

/**
 * One string per distinct set of policy subjects: two actors with the same key get the same decisions, so
 * caches of decisions are keyed by it (groups sorted, since their order carries no meaning).
 */
export const actorKey = (actor: Pick<Actor, 'subject' | 'groups'>): string =>
  actor.groups.length ? `${actor.subject}\n${[...actor.groups].sort().join('\n')}` : actor.subject;

/** An actor for in-process use (embedding, tests, the system itself). */
export const systemActor = (id = 'system', groups: string[] = []): Actor => ({
  id,
  subject: rbacSubject.user(id),
  email: '',
  displayName: id,
  groups,
  tokenId: '',
  issuer: 'portico',
  issuedAt: new Date(0),
  expiresAt: new Date(8.64e15),
  local: true,
});
