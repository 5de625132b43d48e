/** Where an instance lives: `namespace` is '' for cluster-scoped kinds. */
export interface InstanceKey {
  namespace: string;
  kind: string;
  name: string;
}
