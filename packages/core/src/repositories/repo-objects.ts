import type * as api from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';
import type { RepoCredentials } from './git-remote.js';

/**
 * How a repository lives in the cluster (so every replica sees the same ones): a ConfigMap `portico-<id>` with
 * its public facts and a Secret of the same name with its credentials, both in Portico's namespace. The project
 * is a label of its own (`portico.dev/repository-project`), not `portico.dev/project`: a project's Secrets API
 * lists Secrets by that label, and a repository's credentials must never show up there.
 */
export const REPOSITORY_LABEL = 'portico.dev/repository';
export const REPOSITORY_PROJECT_LABEL = 'portico.dev/repository-project';
export const REPOSITORY_ID_LABEL = 'portico.dev/repository-id';

export const objectNameOf = (id: string) => `portico-${id}`;

export const repositoryLabels = (project: string, id: string) => ({
  [REPOSITORY_LABEL]: 'true',
  [REPOSITORY_PROJECT_LABEL]: project,
  [REPOSITORY_ID_LABEL]: id,
  'app.kubernetes.io/managed-by': 'portico',
  'app.kubernetes.io/part-of': 'portico',
});

export const isRepositoryObject = (o: KubeObject) => o.metadata.labels?.[REPOSITORY_LABEL] === 'true' && Boolean(o.metadata.labels?.[REPOSITORY_ID_LABEL]);

/** The ConfigMap keys of RepoInfo (the id and project are labels). */
type InfoKey = 'name' | 'repoURL' | 'authType' | 'defaultBranch' | 'createdBy' | 'createdAt' | 'updatedBy' | 'updatedAt' | 'validationStatus' | 'validationMessage';

export function infoData(info: Partial<api.RepoInfo>): Partial<Record<InfoKey, string | null>> {
  const out: Partial<Record<InfoKey, string | null>> = {};
  for (const key of ['name', 'repoURL', 'authType', 'defaultBranch', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt', 'validationStatus', 'validationMessage'] as const) {
    if (key in info) out[key] = (info[key] as string | undefined) ?? null;
  }
  return out;
}

const statuses = new Set(['valid', 'invalid', 'unknown']);

export function repoInfoOf(configMap: KubeObject): api.RepoInfo {
  const d = configMap.data ?? {};
  const labels = configMap.metadata.labels ?? {};
  const info: api.RepoInfo = {
    id: labels[REPOSITORY_ID_LABEL] ?? '',
    projectId: labels[REPOSITORY_PROJECT_LABEL] ?? '',
    name: d.name ?? '',
    repoURL: d.repoURL ?? '',
    authType: d.authType === 'ssh' ? 'ssh' : 'https',
    defaultBranch: d.defaultBranch || 'main',
    createdBy: d.createdBy ?? '',
    createdAt: d.createdAt ?? configMap.metadata.creationTimestamp ?? '',
    validationStatus: statuses.has(d.validationStatus ?? '') ? (d.validationStatus as api.RepoInfo['validationStatus']) : 'unknown',
  };
  if (d.updatedBy) info.updatedBy = d.updatedBy;
  if (d.updatedAt) info.updatedAt = d.updatedAt;
  if (d.validationMessage) info.validationMessage = d.validationMessage;
  return info;
}

/** Secret keys, per transport: sending one transport's credentials replaces all of that transport's keys. */
export const httpsKeys = ['username', 'password', 'bearerToken', 'tlsClientCert', 'tlsClientKey', 'caCert'] as const;
export const sshKeys = { privateKey: 'sshPrivateKey', knownHosts: 'sshKnownHosts' } as const;

const encode = (v: string) => Buffer.from(v, 'utf8').toString('base64');
const decode = (v: string | undefined) => (v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8') || undefined);

/**
 * The Secret data a change writes: `null` removes a key (a merge patch). `undefined` for a transport keeps its
 * stored keys; `dropOther` removes the keys of the transport not in use (an authType change).
 */
export function credentialData(change: { httpsAuth?: api.HttpsAuth; sshAuth?: api.SshAuth; authType: 'https' | 'ssh'; dropOther: boolean }): Record<string, string | null> {
  const data: Record<string, string | null> = {};
  const https = change.httpsAuth ?? (change.dropOther && change.authType === 'ssh' ? {} : undefined);
  if (https) for (const key of httpsKeys) data[key] = https[key] !== undefined ? encode(https[key]!) : null;
  const ssh = change.sshAuth ?? (change.dropOther && change.authType === 'https' ? ({} as Partial<api.SshAuth>) : undefined);
  if (ssh) for (const [field, key] of Object.entries(sshKeys)) data[key] = ssh[field as keyof api.SshAuth] !== undefined ? encode(ssh[field as keyof api.SshAuth]!) : null;
  return data;
}

export function credentialsOf(secret: KubeObject | undefined): RepoCredentials {
  const d = secret?.data ?? {};
  const creds: RepoCredentials = {};
  for (const key of httpsKeys) {
    const value = decode(d[key]);
    if (value !== undefined) creds[key] = value;
  }
  const privateKey = decode(d[sshKeys.privateKey]);
  const knownHosts = decode(d[sshKeys.knownHosts]);
  if (privateKey !== undefined) creds.privateKey = privateKey;
  if (knownHosts !== undefined) creds.knownHosts = knownHosts;
  return creds;
}
