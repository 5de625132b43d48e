import type { DeploymentMode, RevisionCondition } from '@portico/api';
import type { CatalogResource } from './dependencies.js';
import type { ResourceDescription } from './resource-descriptions.js';

/** What happened to a catalog entry. */
export type CatalogChange = 'add' | 'update' | 'delete';

export type { CatalogResource } from './dependencies.js';

/** A JSON Schema object (the draft 2020-12 subset kro's simple schema translates to). */
export interface JsonSchemaObject {
  type?: string;
  properties?: Record<string, JsonSchemaObject>;
  required?: string[];
  additionalProperties?: boolean | JsonSchemaObject;
  items?: JsonSchemaObject;
  default?: unknown;
  enum?: unknown[];
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  [keyword: string]: unknown;
}

/**
 * Everything the catalog knows about one ResourceGraphDefinition. Built from the object alone (no I/O), so it is
 * cheap to rebuild on every informer event; the compiled JSON Schema is cached separately by name + revision.
 */
export interface CatalogEntry {
  /** metadata.name of the RGD. */
  name: string;
  /** Whether the RGD carries `<prefix>/catalog: "true"`. */
  inCatalog: boolean;
  title: string;
  description: string;
  category: string;
  tags: string[];
  icon?: string;
  docsUrl?: string;
  labels: Record<string, string>;
  /** From the `<prefix>/project` label; absent = public. */
  project?: string;
  /** Instance API group (spec.schema.group, default `kro.run`). */
  group: string;
  /** Instance API version (spec.schema.apiVersion). */
  version: string;
  /** `group/version` of the instances. */
  apiVersion: string;
  /** Instance kind (spec.schema.kind). */
  kind: string;
  extendsKinds: string[];
  allowedDeploymentModes: DeploymentMode[];
  isClusterScoped: boolean;
  /** status.state, `Inactive` when absent. */
  status: string;
  createdAt: string;
  updatedAt: string;
  /** metadata.resourceVersion (or generation): the compiled schema is cached per name + revision. */
  revision: string;
  resources: CatalogResource[];
  /** `spec.resources` as a graph view draws them (and as child resources are named). */
  graph: ResourceDescription[];
  /** kro's `status.topologicalOrder`: the order it creates the resources in; [] until kro has reported it. */
  topologicalOrder: string[];
  /** `<prefix>/updated-by` when whoever changed the RGD said who they are. */
  updatedBy?: string;
  /** spec.schema.spec and spec.schema.types in kro's simple-schema notation, compiled on demand. */
  schemaSpec: unknown;
  schemaTypes?: Record<string, unknown>;
  /** `<prefix>/property-order`: the deploy form's top-level field order, when the author set one. */
  propertyOrder?: string[];
  /** metadata.uid and metadata.generation (a spec change moves the generation, a label or status change does not). */
  uid?: string;
  generation?: number;
  /** The RGD's `spec` as stored (a revision's snapshot) and the sha256 of its canonical JSON. */
  spec: Record<string, unknown>;
  specHash: string;
  /** status.conditions with a True/False/Unknown status: the newest revision's conditions. */
  conditions: RevisionCondition[];
  /** The newest recorded revision of `spec` (0 before the first is recorded); set by the catalog index. */
  lastIssuedRevision: number;
}
