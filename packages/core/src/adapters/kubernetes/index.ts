export { createKubernetesCluster, type KubernetesClusterOptions } from './kubernetes-cluster.js';
