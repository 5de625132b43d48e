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
export { manifestPath, manifestYaml } from './gitops.js';
export { gitAnnotations, gitFieldsOf, gitLabels, placementOf } from './git-fields.js';
export { eventsForChange, deployProgress, readyResourcesOf, claimOf } from './instance-events.js';
export { applyMergePatch, mergePatchBetween } from './merge-patch.js';
export { childrenOf, groupChildren } from './children.js';
export { childHealth, worstHealth } from './child-health.js';
export { createInstanceHistory, maxInstanceEvents, type HistorySubject } from './instance-history.js';
export { createHistoryStore, historyObjectName, historyRetentionMs, maxHistoryEvents, type HistoryDoc, type HistoryStore } from './history-store.js';
export { reconcile as reconcileHistory, markDeleted, createdEvent } from './history-entries.js';
export { recordHistory, type HistoryRecorder } from './history-recorder.js';
export { timelineOf, historyCsv } from './history-timeline.js';
export type { InstanceAdmission, InstanceAdmissionReview, InstanceAdmissionResult } from './admission.js';
