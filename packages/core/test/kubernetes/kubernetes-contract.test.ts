import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { clusterContract } from '../contract/cluster-contract.js';
import { startFakeKubeApi } from '../support/fake-kube-api.js';

// The shared Cluster contract, against the Kubernetes adapter talking HTTP to the fake API server.
clusterContract('kubernetes', async () => {
  const api = await startFakeKubeApi();
  const cluster = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, requestTimeoutMs: 5_000 });
  return {
    cluster,
    cleanup: async () => {
      await cluster.close();
      await api.stop();
    },
  };
});
