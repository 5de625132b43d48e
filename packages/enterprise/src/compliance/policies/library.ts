import type { KubeObject } from '@portico/core';
import { containersOf } from './pod-spec.js';
import { parseQuantity } from './quantity.js';

/**
 * A template kind implemented natively, compiled with a constraint's parameters (once per constraint, since an
 * audit judges tens of thousands of objects with the same ones): the messages it reports for one object
 * (none = compliant).
 */
export type PolicyCheck = (parameters: Record<string, any>) => (obj: KubeObject) => string[];

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const none: string[] = [];

/** `labels: [{key, allowedRegex?}]` (the Gatekeeper library's form) or `labels: ["key"]` (its older form). */
const requiredLabels: PolicyCheck = (params) => {
  const wanted = list(params.labels)
    .map((l) => (typeof l === 'string' ? { key: l } : (l as { key?: unknown; allowedRegex?: unknown })))
    .filter((l): l is { key: string; allowedRegex?: unknown } => typeof l.key === 'string');
  const custom = params.message && typeof params.message === 'string' ? params.message : undefined;
  const patterns: Array<{ key: string; source: string; regex: RegExp }> = [];
  for (const l of wanted) {
    if (typeof l.allowedRegex !== 'string' || l.allowedRegex === '') continue;
    try {
      patterns.push({ key: l.key, source: l.allowedRegex, regex: new RegExp(l.allowedRegex) });
    } catch {
      // a template with a broken pattern cannot judge; Gatekeeper would report an error, not a violation
    }
  }
  return (obj) => {
    const have = obj.metadata.labels ?? {};
    let messages = none;
    const missing = wanted.filter((l) => !(l.key in have)).map((l) => l.key);
    if (missing.length > 0) messages = [custom ?? `you must provide labels: ${JSON.stringify(missing.sort())}`];
    for (const p of patterns) {
      const value = have[p.key];
      if (value === undefined || p.regex.test(value)) continue;
      if (messages === none) messages = [];
      messages.push(`Label <${p.key}: ${value}> does not satisfy allowed regex: ${p.source}`);
    }
    return messages;
  };
};

const allowedRepos: PolicyCheck = (params) => {
  const repos = list(params.repos).filter((r): r is string => typeof r === 'string');
  const allowed = JSON.stringify(repos);
  return (obj) => {
    let messages = none;
    for (const c of containersOf(obj)) {
      const image = String(c.image ?? '');
      if (repos.some((repo) => image.startsWith(repo))) continue;
      if (messages === none) messages = [];
      messages.push(`container <${c.name ?? ''}> has an invalid image repo <${c.image ?? ''}>, allowed repos are ${allowed}`);
    }
    return messages;
  };
};

const containerLimits: PolicyCheck = (params) => {
  const maxima = (['cpu', 'memory'] as const).map((resource) => ({ resource, max: parseQuantity(params[resource]), text: String(params[resource]) }));
  return (obj) => {
    let messages = none;
    const say = (message: string) => {
      if (messages === none) messages = [];
      messages.push(message);
    };
    for (const c of containersOf(obj)) {
      const limits = c.resources?.limits ?? {};
      for (const { resource, max, text } of maxima) {
        const limit = limits[resource];
        if (limit === undefined || limit === null || limit === '') {
          say(`container <${c.name ?? ''}> has no ${resource} limit`);
          continue;
        }
        const value = parseQuantity(limit);
        if (value === undefined) say(`container <${c.name ?? ''}> ${resource} limit <${String(limit)}> could not be parsed`);
        else if (max !== undefined && value > max) say(`container <${c.name ?? ''}> ${resource} limit <${String(limit)}> is higher than the maximum allowed of <${text}>`);
      }
    }
    return messages;
  };
};

const nodePort = ['User is not allowed to create service of type NodePort'];
const blockNodePort: PolicyCheck = () => (obj) => (obj.kind === 'Service' && obj.spec?.type === 'NodePort' ? nodePort : none);

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
