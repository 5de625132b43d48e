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
}

/** Subjects an actor speaks for in policy: itself and each of its groups. */
export const actorSubjects = (actor: Pick<Actor, 'subject' | 'groups'>): string[] => [
  actor.subject,
  ...actor.groups.map((g) => `group:${g}`),
];

/** An actor for in-process use (embedding, tests, the system itself). */
export const systemActor = (id = 'system', groups: string[] = []): Actor => ({
  id,
  subject: `user:${id}`,
  email: '',
  displayName: id,
  groups,
  tokenId: '',
  issuer: 'portico',
  issuedAt: new Date(0),
  expiresAt: new Date(8.64e15),
  local: true,
});
