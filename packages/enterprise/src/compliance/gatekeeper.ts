import type * as api from '@portico/api/enterprise';
import type { KubeObject, ResourceRef } from '@portico/core';

/**
 * Gatekeeper's objects as the Cluster port reads them: ConstraintTemplates (one cluster-scoped CRD that installing
 * Gatekeeper adds) and constraints (one cluster-scoped kind per template, in `constraints.gatekeeper.sh`, whose
 * CRD Gatekeeper generates from the template).
 */
export const templateRef: ResourceRef = { group: 'templates.gatekeeper.sh', version: 'v1', kind: 'ConstraintTemplate', plural: 'constrainttemplates', namespaced: false };
export const constraintGroup = 'constraints.gatekeeper.sh';
export const constraintVersion = 'v1beta1';
export const constraintApiVersion = `${constraintGroup}/${constraintVersion}`;

const isRecord = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** The constraint kind a template defines (`spec.crd.spec.names.kind`); '' when it names none. */
export const constraintKindOf = (template: KubeObject): string => text(template.spec?.crd?.spec?.names?.kind);

/** Gatekeeper's generated CRD uses the lower-cased kind as its plural. */
export const constraintRefOf = (kind: string): ResourceRef => ({ group: constraintGroup, version: constraintVersion, kind, plural: kind.toLowerCase(), namespaced: false });

/** The openAPIV3Schema of a template's parameters ({} when it declares none). */
export const parametersSchemaOf = (template: KubeObject): Record<string, unknown> => {
  const schema = template.spec?.crd?.spec?.validation?.openAPIV3Schema;
  return isRecord(schema) ? schema : {};
};

export function toTemplate(obj: KubeObject): api.ConstraintTemplate {
  const annotations = obj.metadata.annotations ?? {};
  const targets: unknown[] = Array.isArray(obj.spec?.targets) ? obj.spec.targets : [];
  return {
    name: obj.metadata.name,
    kind: constraintKindOf(obj),
    description: annotations.description ?? annotations['metadata.gatekeeper.sh/description'] ?? '',
    rego: targets.map((t) => (isRecord(t) ? text(t.rego) : '')).filter(Boolean).join('\n---\n'),
    parameters: parametersSchemaOf(obj),
    labels: obj.metadata.labels ?? {},
    createdAt: obj.metadata.creationTimestamp ?? '',
  };
}

export const enforcementOf = (obj: KubeObject): api.EnforcementAction => {
  const action = obj.spec?.enforcementAction;
  return action === 'warn' || action === 'dryrun' ? action : 'deny';
};

/** `spec.match` with Gatekeeper's defaults: no kinds = every kind, no namespaces = every namespace. */
export function matchOf(obj: KubeObject): api.ConstraintMatch {
  const m = isRecord(obj.spec?.match) ? obj.spec.match : {};
  const kinds = (Array.isArray(m.kinds) ? (m.kinds as unknown[]) : []).filter(isRecord).map((k: Record<string, any>) => ({ apiGroups: strings(k.apiGroups), kinds: strings(k.kinds) }));
  const scope = m.scope === 'Namespaced' || m.scope === 'Cluster' ? m.scope : '*';
  return { kinds, namespaces: strings(m.namespaces), excludedNamespaces: strings(m.excludedNamespaces), scope };
}

export const parametersOf = (obj: KubeObject): Record<string, unknown> => (isRecord(obj.spec?.parameters) ? obj.spec.parameters : {});

/** One entry of a constraint's `status.violations[]` as Gatekeeper's audit writes it. */
export interface StatusViolation {
  enforcementAction: string;
  group: string;
  version: string;
  kind: string;
  namespace?: string;
  name: string;
  message: string;
}

/** The violations Gatekeeper's audit reported on a constraint (malformed entries are skipped). */
export function statusViolationsOf(obj: KubeObject): StatusViolation[] {
  const list: unknown[] = Array.isArray(obj.status?.violations) ? obj.status.violations : [];
  return list.filter(isRecord).filter((v) => typeof v.kind === 'string' && typeof v.name === 'string').map((v) => ({
    enforcementAction: text(v.enforcementAction) || enforcementOf(obj),
    group: text(v.group),
    version: text(v.version),
    kind: v.kind,
    namespace: text(v.namespace),
    name: v.name,
    message: text(v.message),
  }));
}

/** `status.totalViolations`, or the listed ones when the audit wrote no total. */
export function totalViolationsOf(obj: KubeObject): number {
  const total = obj.status?.totalViolations;
  return typeof total === 'number' && Number.isInteger(total) && total >= 0 ? total : statusViolationsOf(obj).length;
}

/** Which template a constraint belongs to: the template whose kind it is (Gatekeeper names the template after the lower-cased kind). */
export const templateNameOf = (kind: string, templatesByKind: ReadonlyMap<string, string>) => templatesByKind.get(kind) ?? kind.toLowerCase();

export const crdRef: ResourceRef = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };

/**
 * The CRD Gatekeeper generates for a template's constraint kind: cluster-scoped, `spec.parameters` from the
 * template's schema. No status subresource here: the simulated audit writes status through the Cluster port's
 * merge patch, which has no status endpoint.
 */
export function constraintCrdOf(template: KubeObject): KubeObject {
  const kind = constraintKindOf(template);
  const ref = constraintRefOf(kind);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${ref.plural}.${constraintGroup}`, labels: { 'gatekeeper.sh/constraint': 'yes' } },
    spec: {
      group: constraintGroup,
      names: { kind, plural: ref.plural, singular: ref.plural, listKind: `${kind}List`, categories: ['constraint', 'constraints'] },
      scope: 'Cluster',
      versions: [{ name: constraintVersion, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}
