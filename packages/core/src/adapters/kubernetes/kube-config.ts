import { createRequire } from 'node:module';
import type { KubeConfig } from '@kubernetes/client-node';
import { PorticoError } from '../../errors.js';

interface KubeConfigSource {
  /** Use the pod's service account (KUBERNETES_IN_CLUSTER=true). */
  inCluster: boolean;
  /** A kubeconfig file; otherwise KUBECONFIG or ~/.kube/config. */
  kubeconfigPath?: string;
  /** A ready KubeConfig (tests, embedding programs); wins over everything else. */
  kubeConfig?: KubeConfig;
}

/**
 * The client library, loaded on first use: importing it takes about a second, which every start on the embedded
 * cluster (the default) and every program that embeds core used to pay without ever talking to Kubernetes.
 */
const clientNode = () => createRequire(import.meta.url)('@kubernetes/client-node') as typeof import('@kubernetes/client-node');

const configError = (message: string) => new PorticoError('BAD_REQUEST', `invalid Kubernetes configuration: ${message}`, { variable: 'KUBERNETES_IN_CLUSTER' });

/** Loads credentials the way kubectl and client-go do; a missing or unusable config stops start-up with a clear message. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  let kc = source.kubeConfig;
  if (!kc) {
    kc = new (clientNode().KubeConfig)();
    if (source.inCluster) {
      if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) {
        throw configError('KUBERNETES_IN_CLUSTER=true but KUBERNETES_SERVICE_HOST/PORT are not set (not running in a pod?)');
      }
      kc.loadFromCluster();
    } else if (source.kubeconfigPath) {
      kc.loadFromFile(source.kubeconfigPath);
    } else {
      kc.loadFromDefault();
    }
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw configError('the kubeconfig has no current context/cluster (set KUBECONFIG or KUBERNETES_IN_CLUSTER=true)');
  // client-node refuses plain HTTP unless TLS verification is explicitly skipped; say so up front, not per request.
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify && !cluster.proxyUrl) {
    throw configError(`server ${cluster.server} uses plain HTTP; set insecure-skip-tls-verify for it or use https`);
  }
  return kc;
}
