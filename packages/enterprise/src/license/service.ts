import type { RbacVocabulary } from '@portico/api';
import { badRequest, forbidden, type Actor, type Authorizer, type Logger } from '@portico/core';
import type { ApplyLicenseRequest, LicenseStatus } from '@portico/api/enterprise';
import { gateFeature, type Access } from './gate.js';
import type { Seats } from './seats.js';
import { evaluateLicense, licenseStatusBody, type LicenseSource } from './status.js';
import type { LicenseStore } from './store.js';
import type { LicenseVerifier } from './verify.js';

export interface LicenseService {
  start(): Promise<void>;
  stop(): void;
  /** `GET /api/v1/license`: any signed-in user. */
  status(actor: Actor): Promise<LicenseStatus>;
  /** `POST /api/v1/license`: verifies, stores in the Secret (all replicas follow), answers the new status. */
  apply(actor: Actor, input: ApplyLicenseRequest): Promise<LicenseStatus>;
  /** Throws 402 when `feature` may not serve this access; otherwise the `X-License-Warning` values. */
  gate(feature: string, access: Access): string[];
}

export interface LicenseDeps {
  /** This Portico's RBAC vocabulary, which spells the objects asked about. */
  vocabulary: Pick<RbacVocabulary, 'object'>;
  store: LicenseStore;
  verify: LicenseVerifier;
  seats: Seats;
  authz: Pick<Authorizer, 'can'>;
  logger: Logger;
  /** The token of `PORTICO_LICENSE_FILE`: used while no license has been applied through the API. */
  fileToken?: string;
  now?: () => Date;
}

export function createLicenseService(deps: LicenseDeps): LicenseService {
  const now = deps.now ?? (() => new Date());
  let source: LicenseSource = {};
  // Verification is async; a slower, older one must not overwrite a newer token's result.
  let generation = 0;
  const load = async (token: string | undefined) => {
    const mine = ++generation;
    const next: LicenseSource = token ? { token, verified: await deps.verify(token) } : {};
    if (mine !== generation) return;
    source = next;
    const evaluated = evaluateLicense(source, now());
    deps.logger.info({ status: evaluated.state, licenseId: evaluated.claims?.lid }, `license: ${evaluated.message}`);
  };
  const effectiveToken = (stored: string | undefined) => stored ?? deps.fileToken;

  return {
    async start() {
      deps.store.onChange((token) => void load(effectiveToken(token)));
      await deps.store.start();
      await load(effectiveToken(deps.store.token()));
    },
    stop() {
      deps.store.stop();
      deps.seats.stop();
    },
    async status() {
      const used = await deps.seats.refresh();
      return licenseStatusBody(evaluateLicense(source, now()), used);
    },
    async apply(actor, input) {
      if (!deps.authz.can(actor, 'update', deps.vocabulary.object('license'))) throw forbidden('only a Server Admin may install a license');
      const token = input.token.trim();
      const verified = await deps.verify(token);
      if (!verified.ok) throw badRequest(`license rejected: ${verified.reason}`, { field: 'token' });
      await deps.store.write(token);
      // This replica answers with the new license at once; the others follow through the watch.
      generation++;
      source = { token, verified };
      const used = await deps.seats.refresh().catch(() => deps.seats.used());
      return licenseStatusBody(evaluateLicense(source, now()), used);
    },
    gate(feature, access) {
      return gateFeature(evaluateLicense(source, now()), feature, access, deps.seats.used());
    },
  };
}
