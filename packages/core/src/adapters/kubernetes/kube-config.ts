import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
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

const configError = (message: string, variable = 'KUBERNETES_IN_CLUSTER') =>
  new PorticoError('BAD_REQUEST', `invalid Kubernetes configuration: ${message}`, { variable });

/** Where client-node finds a pod's credentials when no kubeconfig exists, as kubectl does. */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

const WAYS_TO_A_CLUSTER =
  'point KUBECONFIG at a kubeconfig file, set KUBERNETES_IN_CLUSTER=true inside a pod, or start on the embedded cluster with PORTICO_CLUSTER=embedded';

/**
 * Without any kubeconfig, client-node falls back to an invented cluster at http://localhost:8080, and the error
 * that follows talks about plain HTTP: say instead that there is no configuration, and what would give one.
 */
function assertKubeconfigExists(kubeconfigVariable: string | undefined): void {
  if (kubeconfigVariable) {
    // client-node reads every file of the list and fails on the first missing one with a bare ENOENT.
    const missing = kubeconfigVariable.split(path.delimiter).filter((file) => file && !existsSync(file));
    if (missing.length) throw configError(`KUBECONFIG names ${missing.join(', ')}, which does not exist; ${WAYS_TO_A_CLUSTER}`, 'KUBECONFIG');
    return;
  }
  if (process.platform === 'win32') return;
  const fallback = path.join(process.env.HOME || homedir(), '.kube', 'config');
  if (existsSync(fallback) || existsSync(SERVICE_ACCOUNT_TOKEN)) return;
  throw configError(`no kubeconfig found: KUBECONFIG is not set and ${fallback} does not exist; ${WAYS_TO_A_CLUSTER}`, 'KUBECONFIG');
}

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
      assertKubeconfigExists(process.env.KUBECONFIG);
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
