import type { Logger } from '../logger.js';
import { ADMIN_USERNAME, cutOffAfter, type LocalAccount } from './local-account.js';
import { generatePassword, hashPassword } from './passwords.js';
import type { SecretChanges, SecretData, SecretStore } from './secrets.js';

/** The Secret holding the built-in admin: `password` (scrypt hash), `createdAt`, `tokensValidAfter`. */
export const ADMIN_SECRET = 'portico-admin';

/**
 * A generated initial password is also kept, in plain text, in this Secret (as Argo CD does) so an operator can
 * read it with kubectl or the CLI after the one log line has scrolled away. It is emptied when the admin changes
 * the password; it is never written when ADMIN_PASSWORD supplied the password. `signedInAt` records the admin's
 * first sign-in (see `showUnusedInitialPassword`).
 */
export const INITIAL_ADMIN_SECRET = 'portico-initial-admin-secret';

const text = (b: Buffer | undefined) => (b?.length ? b.toString('utf8') : undefined);

export function adminFromSecret(data: SecretData | undefined): LocalAccount | undefined {
  const hash = text(data?.password);
  if (!hash) return undefined;
  return {
    username: ADMIN_USERNAME,
    hash,
    groups: [],
    createdAt: text(data?.createdAt) ?? new Date(0).toISOString(),
    tokensValidAfter: text(data?.tokensValidAfter),
    builtIn: true,
  };
}

export const adminPasswordChanges = (hash: string, tokensValidAfter: string): SecretChanges => ({ password: hash, tokensValidAfter });

/**
 * Makes sure the admin has a password. Only when none is stored: ADMIN_PASSWORD if given, else a generated
 * one that is logged once (and only by the replica whose write won). An existing hash is never overwritten.
 */
export async function bootstrapLocalAdmin(deps: {
  secrets: SecretStore;
  adminPassword?: string;
  logger: Logger;
  now: () => number;
  /** Shows a generated password to a person (the development console's framed block) instead of logging it. */
  showGeneratedPassword?: (password: string) => void;
}): Promise<void> {
  const { secrets, adminPassword, logger, now } = deps;
  if (adminFromSecret(await secrets.read(ADMIN_SECRET))) {
    if (deps.showGeneratedPassword) await showUnusedInitialPassword(secrets, deps.showGeneratedPassword, logger);
    if (adminPassword !== undefined) {
      logger.warn(
        { username: ADMIN_USERNAME, secret: ADMIN_SECRET },
        'ADMIN_PASSWORD is ignored: the admin already has a password. To replace it, stop the server and run `portico-server admin reset-password` with the same configuration (`npm run admin -- reset-password` next to `npm start`; see docs/operations.md)',
      );
    }
    return;
  }

  const password = adminPassword ?? generatePassword();
  const hash = await hashPassword(password);
  const { changed } = await secrets.update(ADMIN_SECRET, (current): SecretChanges =>
    adminFromSecret(current) ? {} : { password: hash, createdAt: current?.createdAt ?? new Date(now()).toISOString() },
  );
  if (!changed) return; // another replica stored its password first; ours was never valid

  if (adminPassword !== undefined) {
    logger.info({ username: ADMIN_USERNAME }, 'admin password set from ADMIN_PASSWORD');
  } else {
    await secrets.update(INITIAL_ADMIN_SECRET, () => ({ password }));
    if (deps.showGeneratedPassword) {
      deps.showGeneratedPassword(password);
      logger.info({ username: ADMIN_USERNAME, secret: INITIAL_ADMIN_SECRET }, 'initial admin password generated and shown; it is kept in the Secret until the admin changes it');
    } else {
      logger.warn(
        { username: ADMIN_USERNAME, password, secret: INITIAL_ADMIN_SECRET },
        'initial admin password generated; it is shown only once here and kept in the Secret until the admin changes it',
      );
    }
  }
}

/**
 * A person's start (development) shows the generated password again while the admin has never signed in with it:
 * a first start whose listen failed (a busy port) generated and stored it but never showed it.
 */
async function showUnusedInitialPassword(secrets: SecretStore, show: (password: string) => void, logger: Logger): Promise<void> {
  const initial = await secrets.read(INITIAL_ADMIN_SECRET);
  const password = text(initial?.password);
  if (!password || text(initial?.signedInAt)) return;
  show(password);
  logger.info({ username: ADMIN_USERNAME, secret: INITIAL_ADMIN_SECRET }, 'the admin has not signed in yet: the initial password is shown again');
}

/** Records the admin's first sign-in, after which the initial password is no longer shown at start. */
export async function recordAdminSignIn(secrets: SecretStore, now: () => number): Promise<void> {
  await secrets.update(INITIAL_ADMIN_SECRET, (current): SecretChanges =>
    text(current?.password) && !text(current?.signedInAt) ? { signedInAt: new Date(now()).toISOString() } : {},
  );
}

/**
 * The operator's way back in: replaces the admin's password (the given one, or a generated one kept in the
 * initial-password Secret) and revokes every token issued before, whatever was stored.
 */
export async function resetAdminPassword(deps: { secrets: SecretStore; password?: string; now: () => number }): Promise<{ password: string; generated: boolean }> {
  const generated = deps.password === undefined;
  const password = deps.password ?? generatePassword();
  const hash = await hashPassword(password);
  const t = deps.now();
  await deps.secrets.update(ADMIN_SECRET, (current) => ({
    ...adminPasswordChanges(hash, cutOffAfter(t, text(current?.tokensValidAfter))),
    createdAt: current?.createdAt ?? new Date(t).toISOString(),
  }));
  await deps.secrets.update(INITIAL_ADMIN_SECRET, () => ({ password: generated ? password : null, signedInAt: null }));
  return { password, generated };
}
