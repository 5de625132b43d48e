import type { ComponentHealth, Disposable, KubeObject, ResourceRef } from '../ports/cluster.js';

export type InformerEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface InformerEvent {
  type: InformerEventType;
  object: KubeObject;
  /** The cached object before a MODIFIED or DELETED. */
  previous?: KubeObject;
}

/**
 * A list+watch cache over one resource, the way client-go's informers work: it lists, watches from the list's
 * resourceVersion, relists on 410 Gone (emitting the difference as events), restarts with backoff on errors or
 * a stalled stream. Domain indexes (catalog, policies, instances) are built from its events.
 */
export interface Informer {
  readonly ref: ResourceRef;
  /** Resolves after the first list has been applied. */
  start(): Promise<void>;
  stop(): void;
  list(): KubeObject[];
  get(name: string, namespace?: string): KubeObject | undefined;
  /** Listeners run synchronously, in order, after the cache is updated. */
  on(listener: (event: InformerEvent) => void): Disposable;
  health(): ComponentHealth;
}

/**
 * What a reader of a shared informer may use: its cache and its events. Whoever made the informer starts and
 * stops it; readers never do, and never mutate the (frozen) objects.
 */
export type InformerView = Pick<Informer, 'ref' | 'list' | 'get' | 'on' | 'health'>;

export const objectKey = (o: { metadata: { name: string; namespace?: string } }) =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
