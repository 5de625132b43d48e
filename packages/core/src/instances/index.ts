export { createInstances, type Instances, type InstancesDeps } from './instances.js';
export { createInstanceIndex, type InstanceIndex, type IndexedInstance, type IndexChange, type IndexTarget, type KindIndexed, type CreateInformer, type CatalogSource } from './instance-index.js';
export { instanceHealth, readyCondition, type KroState } from './health.js';
export {
  toInstance,
  instanceManifest,
  manifestFieldsOf,
  instanceObject,
  instanceId,
  instanceLabels,
  instanceAnnotations,
  normaliseConditions,
  type InstanceContext,
  type NewInstance,
} from './instance-resource.js';
export { checkCreate, findProject, gitopsRepoSetting, type CreationPlan } from './create-checks.js';
export { createGitWriter, manifestPath, manifestYaml, type GitWriter } from './gitops.js';
export { eventsForChange, deployProgress, readyResourcesOf, claimOf } from './instance-events.js';
export { applyMergePatch, mergePatchBetween } from './merge-patch.js';
export { childrenOf } from './children.js';
export { createInstanceHistory, maxInstanceEvents } from './instance-history.js';
export { readTimeline, statusEntry, withEntry, timelineAnnotation, maxTimelineEntries } from './timeline.js';
export { recordStatusChanges } from './timeline-recorder.js';
export type { InstanceAdmission, InstanceAdmissionReview, InstanceAdmissionResult } from './admission.js';
