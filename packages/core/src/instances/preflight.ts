import { randomUUID } from 'node:crypto';
import { PreflightBody, type PreflightCheck, type PreflightResponse } from '@portico/api';
import type { Actor } from '../actor.js';
import { badRequest, isPorticoError } from '../errors.js';
import type { CreateInstanceInput, PreflightInput } from '../types.js';
import { parseInput } from '../validation.js';
import { checkCreate, type CreateCheckName, type CreationPlan } from './create-checks.js';
import { checkNameFree, creationManifest, type CreateInstanceDeps } from './create-instance.js';

/** Stands for "any name" in the permission check of a preflight without a name: only a grant for every name passes. */
const ANY_NAME = '*';

/** A refusal a check gives (4xx); anything else (the cluster unreachable, a bug) is an error of the preflight itself. */
const refusal = (err: unknown) => (isPorticoError(err) && err.status >= 400 && err.status < 500 ? err : undefined);

/**
 * What an edition's admission says when it refuses with policy violations (`details.violations` of §12.5):
 * `Blocked by policy "<Kind>/<name>": <message>` for the first, as consoles show it.
 */
function admissionMessage(err: { message: string; details: Record<string, unknown> }): string {
  const [first] = Array.isArray(err.details.violations) ? err.details.violations : [];
  const v = first as { constraintKind?: unknown; constraintName?: unknown; message?: unknown } | undefined;
  if (typeof v?.constraintKind === 'string' && typeof v.constraintName === 'string' && typeof v.message === 'string') {
    return `Blocked by policy "${v.constraintKind}/${v.constraintName}": ${v.message}`;
  }
  return err.message;
}

/** A `warn` finding (Enterprise: `{policy, message}`), as one line of the compliance check. */
function warningMessage(warning: unknown): string {
  const w = (warning ?? {}) as { policy?: unknown; message?: unknown };
  return typeof w.policy === 'string' && typeof w.message === 'string' ? `Warning from policy "${w.policy}": ${w.message}` : `Warning: ${JSON.stringify(warning)}`;
}

/** The body read as a create's input; throws the 400 a create would give for it. */
function createInputOf(request: PreflightInput): { input: CreateInstanceInput; named: boolean } {
  const body = parseInput(PreflightBody, request.body, 'body');
  if (request.namespace !== undefined && body.namespace !== undefined && body.namespace !== request.namespace) {
    throw badRequest(`namespace "${body.namespace}" in the body is not the path's "${request.namespace}"`, { namespace: body.namespace });
  }
  return {
    named: body.name !== undefined,
    input: {
      name: body.name ?? ANY_NAME,
      namespace: request.namespace ?? body.namespace ?? '',
      project: body.project ?? body.projectId ?? '',
      kind: request.kind,
      rgdName: body.rgdName,
      values: body.values ?? body.spec ?? {},
      deploymentMode: body.deploymentMode,
    },
  };
}

/**
 * §11.4: every check a create runs, in the create's order, writing nothing: the body, then checkCreate's checks
 * (project, permission, destination, RGD, values, deployment mode and repository), the name, the editions'
 * admissions (Enterprise compliance `deny`/`warn`), and the cluster's admission as a dry-run create. The first
 * failure ends it with `valid: false` and its message; what would fail a create is a 200 here, never an error.
 */
export async function preflightInstance(deps: CreateInstanceDeps, actor: Actor, request: PreflightInput): Promise<PreflightResponse> {
  const checks: PreflightCheck[] = [];
  const fail = (name: string, message: string): PreflightResponse => {
    checks.push({ name, ok: false, message });
    return { valid: false, message, checks };
  };

  let parsed: ReturnType<typeof createInputOf>;
  try {
    parsed = createInputOf(request);
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    return fail('request', refused.message);
  }
  checks.push({ name: 'request', ok: true });

  const { catalog, authz, config } = deps;
  let plan: CreationPlan;
  const passed: CreateCheckName[] = [];
  let running: CreateCheckName | undefined;
  try {
    plan = checkCreate({ catalog, authz, projects: deps.projects, config }, actor, parsed.input, (next) => {
      if (running) passed.push(running);
      running = next;
    });
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    // A caller who may not create in the project learns nothing of whether it exists (as a create's 403 tells
    // nothing more): a missing project and a refused permission both fail `permission`, after the same checks.
    const hidden = refused.code === 'FORBIDDEN' && (running === 'project' || running === 'permission');
    checks.push(...passed.filter((name) => !hidden || name !== 'project').map((name) => ({ name, ok: true })));
    return fail(hidden ? 'permission' : (running ?? 'request'), refused.message);
  }
  if (running) passed.push(running);
  checks.push(...passed.map((name) => ({ name, ok: true })));

  if (parsed.named) {
    try {
      await checkNameFree(deps, plan);
    } catch (err) {
      const refused = refusal(err);
      if (!refused) throw err;
      return fail('name', refused.message);
    }
    checks.push({ name: 'name', ok: true });
  } else {
    checks.push({ name: 'name', ok: true, message: 'no name given: not checked' });
  }

  // The manifest exactly as a create would write it; without a name, one no object has, for the dry run.
  const manifest = creationManifest(parsed.named ? plan : { ...plan, key: { ...plan.key, name: `preflight-${randomUUID().slice(0, 8)}` } }, actor);
  const warnings: unknown[] = [];
  try {
    for (const admit of deps.admissions) {
      warnings.push(...((await admit({ operation: 'create', actor, project: plan.project, rgdName: plan.entry.name, manifest }))?.warnings ?? []));
    }
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    return fail('compliance', admissionMessage(refused));
  }
  checks.push({ name: 'compliance', ok: true }, ...warnings.map((w) => ({ name: 'compliance', ok: true, message: warningMessage(w) })));

  const ref = deps.index.refOf(plan.entry) ?? (await deps.cluster.discover(plan.entry.group, plan.entry.version, plan.entry.kind));
  if (!ref) return fail('admission', `rgd "${plan.entry.name}" is not serving its kind yet, retry shortly`);
  try {
    await deps.cluster.create(ref, manifest, { dryRun: true });
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    return fail('admission', admissionMessage(refused));
  }
  checks.push({ name: 'admission', ok: true });
  return { valid: true, checks };
}
