import type { KubeObject } from '@portico/core';
import { containersOf } from './pod-spec.js';
import { parseQuantity } from './quantity.js';

/** A template kind implemented natively: the messages it reports for one object (none = compliant). */
export type PolicyCheck = (parameters: Record<string, any>, obj: KubeObject) => string[];

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** `labels: [{key, allowedRegex?}]` (the Gatekeeper library's form) or `labels: ["key"]` (its older form). */
const requiredLabels: PolicyCheck = (params, obj) => {
  const have = obj.metadata.labels ?? {};
  const wanted = list(params.labels).map((l) => (typeof l === 'string' ? { key: l } : (l as { key?: unknown; allowedRegex?: unknown })));
  const missing = wanted.filter((l) => typeof l.key === 'string' && !(l.key in have)).map((l) => l.key as string);
  const messages = missing.length > 0 ? [params.message && typeof params.message === 'string' ? params.message : `you must provide labels: ${JSON.stringify(missing.sort())}`] : [];
  for (const l of wanted) {
    if (typeof l.key !== 'string' || !(l.key in have) || typeof l.allowedRegex !== 'string' || l.allowedRegex === '') continue;
    let allowed: RegExp;
    try {
      allowed = new RegExp(l.allowedRegex);
    } catch {
      continue; // a template with a broken pattern cannot judge; Gatekeeper would report an error, not a violation
    }
    if (!allowed.test(have[l.key]!)) messages.push(`Label <${l.key}: ${have[l.key]}> does not satisfy allowed regex: ${l.allowedRegex}`);
  }
  return messages;
};

const allowedRepos: PolicyCheck = (params, obj) => {
  const repos = list(params.repos).filter((r): r is string => typeof r === 'string');
  return containersOf(obj)
    .filter((c) => !repos.some((repo) => String(c.image ?? '').startsWith(repo)))
    .map((c) => `container <${c.name ?? ''}> has an invalid image repo <${c.image ?? ''}>, allowed repos are ${JSON.stringify(repos)}`);
};

const containerLimits: PolicyCheck = (params, obj) => {
  const messages: string[] = [];
  for (const c of containersOf(obj)) {
    const limits = c.resources?.limits ?? {};
    for (const resource of ['cpu', 'memory'] as const) {
      const limit = limits[resource];
      if (limit === undefined || limit === null || limit === '') {
        messages.push(`container <${c.name ?? ''}> has no ${resource} limit`);
        continue;
      }
      const max = parseQuantity(params[resource]);
      const value = parseQuantity(limit);
      if (value === undefined) messages.push(`container <${c.name ?? ''}> ${resource} limit <${String(limit)}> could not be parsed`);
      else if (max !== undefined && value > max) messages.push(`container <${c.name ?? ''}> ${resource} limit <${String(limit)}> is higher than the maximum allowed of <${String(params[resource])}>`);
    }
  }
  return messages;
};

const blockNodePort: PolicyCheck = (_params, obj) =>
  obj.kind === 'Service' && obj.spec?.type === 'NodePort' ? ['User is not allowed to create service of type NodePort'] : [];

/**
 * The template kinds Portico evaluates itself: in the simulated Gatekeeper's audit and admission, and in the
 * checks before deploy (validate, instance create) against a real Gatekeeper, whose rego Portico does not run.
 * A constraint of any other kind is reported by Gatekeeper's audit like any other but cannot be checked
 * before deploy.
 */
export const policyLibrary: Readonly<Record<string, PolicyCheck>> = {
  K8sRequiredLabels: requiredLabels,
  K8sAllowedRepos: allowedRepos,
  K8sContainerLimits: containerLimits,
  K8sBlockNodePort: blockNodePort,
};
