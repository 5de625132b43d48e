export { createKubernetesCluster } from './kubernetes-cluster.js';
