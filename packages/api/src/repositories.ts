import { z } from 'zod';
import { DnsLabel, Timestamp } from './common.js';

/**
 * §13: Git repositories a project deploys to in the `gitops` and `hybrid` modes. Credentials are write-only:
 * they are accepted in a body and never appear in an answer.
 */
const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);
/** PEM text and known_hosts lines: printable, with line breaks and tabs. */
const noControlButLines = (s: string) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);
const emptyIsAbsent = (v: unknown) => (v === '' || v === null ? undefined : v);

/** The two transports Portico speaks; `local` is the development default's (`PORTICO_GITOPS_REPO`), never accepted in a body. */
export const RepoAuthType = z.enum(['https', 'ssh']);
export type RepoAuthType = z.infer<typeof RepoAuthType>;

/** A repository id: `repo-` and lower-case letters and digits (a label value, a Kubernetes name part), or `local`. */
export const RepositoryId = z.string().regex(/^(repo-[a-z0-9]{6,40}|local)$/, 'must be a repository id (repo-… or local)');

const scpLike = /^[A-Za-z0-9._~-]+@([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(?!\/\/)[^\s\\]+$/;

/** Which transport a repository URL speaks, or why it is refused (the host check comes later, after DNS). */
export function repoUrlTransport(value: string): { ok: true; transport: RepoAuthType } | { ok: false; reason: string } {
  if (!noControl(value) || /\s/.test(value)) return { ok: false, reason: 'must not contain spaces or control characters' };
  if (scpLike.test(value)) return { ok: true, transport: 'ssh' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'must be an https:// or ssh:// URL, or git@host:path' };
  }
  if (!url.hostname) return { ok: false, reason: 'must name a host' };
  if (url.hash || url.search) return { ok: false, reason: 'must not have a query or fragment' };
  if (url.pathname === '/' || url.pathname === '') return { ok: false, reason: 'must name a repository path' };
  if (url.protocol === 'https:') {
    if (url.username || url.password) return { ok: false, reason: 'must not carry credentials: give them in httpsAuth' };
    return { ok: true, transport: 'https' };
  }
  if (url.protocol === 'ssh:') {
    if (url.password) return { ok: false, reason: 'must not carry a password: give the key in sshAuth' };
    return { ok: true, transport: 'ssh' };
  }
  return { ok: false, reason: `scheme "${url.protocol.replace(/:$/, '')}" is not supported: use https://, ssh:// or git@host:path` };
}

export const RepoUrl = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((value, ctx) => {
    const checked = repoUrlTransport(value);
    if (!checked.ok) ctx.addIssue({ code: 'custom', message: checked.reason });
  });

/** A branch name git accepts (`git check-ref-format --branch`), without leading `-` or `refs/`. */
export const BranchName = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (b) => !/[\u0000-\u0020~^:?*[\\\u007f]/.test(b) && !b.startsWith('-') && !b.startsWith('/') && !b.endsWith('/') && !b.endsWith('.') &&
      !b.endsWith('.lock') && !b.includes('..') && !b.includes('//') && !b.includes('@{') && b !== '@' && !b.startsWith('refs/') &&
      !b.split('/').some((part) => part.startsWith('.')),
    'must be a valid Git branch name',
  );

/** A file in the repository: relative, `/`-separated, no `..`, `.` or empty segment, nothing inside `.git`. */
export const GitPath = z
  .string()
  .min(1)
  .max(1024)
  .refine(
    (p) => noControl(p) && !p.includes('\\') && !p.startsWith('/') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && s.toLowerCase() !== '.git'),
    'must be a relative path without "..", "." or empty segments, outside .git',
  );

const pem = (max: number) => z.preprocess(emptyIsAbsent, z.string().max(max).refine(noControlButLines, 'must not contain control characters').optional());
const secretText = (max: number) => z.preprocess(emptyIsAbsent, z.string().max(max).refine(noControl, 'must not contain control characters').optional());

/** HTTPS credentials: a user and password (or access token as the password), a bearer token, a client certificate, a CA. */
export const HttpsAuth = z
  .object({
    username: secretText(256),
    password: secretText(4096),
    bearerToken: secretText(8192),
    tlsClientCert: pem(65536),
    tlsClientKey: pem(65536),
    caCert: pem(262144),
  })
  .strict()
  .superRefine((a, ctx) => {
    if ((a.tlsClientCert === undefined) !== (a.tlsClientKey === undefined)) {
      ctx.addIssue({ code: 'custom', path: [a.tlsClientCert === undefined ? 'tlsClientCert' : 'tlsClientKey'], message: 'tlsClientCert and tlsClientKey go together' });
    }
    if (a.bearerToken !== undefined && a.password !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['bearerToken'], message: 'give either a password or a bearer token, not both' });
    }
  });
export type HttpsAuth = z.infer<typeof HttpsAuth>;

/** SSH credentials: a private key (OpenSSH or PEM, no passphrase) and the server's known_hosts lines. */
export const SshAuth = z
  .object({
    privateKey: z.string().min(1).max(65536).refine(noControlButLines, 'must not contain control characters').refine((k) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(k), 'must be a private key in OpenSSH or PEM form'),
    knownHosts: pem(262144),
  })
  .strict();
export type SshAuth = z.infer<typeof SshAuth>;

/** `authType` as clients in the field send it: the two supported, and a clear refusal of the others. */
const AuthTypeField = z.string().superRefine((v, ctx) => {
  if (v === 'github-app') ctx.addIssue({ code: 'custom', message: 'github-app is not supported: use https with a token, or ssh with a deploy key' });
  else if (!RepoAuthType.options.includes(v as RepoAuthType)) ctx.addIssue({ code: 'custom', message: 'must be https or ssh' });
}).meta({ openapi: { type: 'string', enum: [...RepoAuthType.options] } });

const NoInsecureTls = z
  .unknown()
  .optional()
  .superRefine((v, ctx) => {
    if (v === true || v === 'true') ctx.addIssue({ code: 'custom', message: 'TLS verification cannot be turned off: give the server\'s CA as httpsAuth.caCert' });
  })
  .meta({ openapi: { type: 'boolean', enum: [false], description: 'refused when true: give the server\'s CA as httpsAuth.caCert' } });

export const RepositoryName = z.string().trim().min(3, 'must be 3 to 100 characters').max(100, 'must be 3 to 100 characters').refine(noControl, 'must not contain control characters');

type Shape = { repoURL?: string; authType?: string; httpsAuth?: unknown; sshAuth?: unknown };

/** The rules across fields: the URL's scheme is the auth type's, and credentials of the other transport are refused. */
function transportChecks(required: boolean) {
  return (b: Shape, ctx: z.RefinementCtx) => {
    const type = b.authType;
    if (b.repoURL !== undefined && (type === 'https' || type === 'ssh')) {
      const checked = repoUrlTransport(b.repoURL);
      if (checked.ok && checked.transport !== type) ctx.addIssue({ code: 'custom', path: ['repoURL'], message: `is an ${checked.transport} URL but authType is ${type}` });
    }
    if (type === 'https' && b.sshAuth !== undefined) ctx.addIssue({ code: 'custom', path: ['sshAuth'], message: 'is for authType ssh' });
    if (type === 'ssh' && b.httpsAuth !== undefined) ctx.addIssue({ code: 'custom', path: ['httpsAuth'], message: 'is for authType https' });
    if (required && type === 'ssh' && b.sshAuth === undefined) ctx.addIssue({ code: 'custom', path: ['sshAuth'], message: 'is required for authType ssh (privateKey)' });
  };
}

const credentialFields = {
  httpsAuth: z.preprocess(emptyIsAbsent, HttpsAuth.optional()),
  sshAuth: z.preprocess(emptyIsAbsent, SshAuth.optional()),
  insecureSkipTLSVerify: NoInsecureTls,
};

export const CreateRepositoryRequest = z
  .object({
    name: RepositoryName,
    projectId: DnsLabel,
    repoURL: RepoUrl,
    authType: AuthTypeField,
    defaultBranch: z.preprocess(emptyIsAbsent, BranchName.default('main')),
    ...credentialFields,
  })
  .superRefine(transportChecks(true))
  .transform(({ insecureSkipTLSVerify: _ignored, ...rest }) => ({ ...rest, authType: rest.authType as RepoAuthType }));
export type CreateRepositoryRequest = z.input<typeof CreateRepositoryRequest>;

/** PATCH: any subset. Credentials sent replace the stored ones of that transport; absent ones are kept. */
export const UpdateRepositoryRequest = z
  .object({
    name: RepositoryName.optional(),
    projectId: DnsLabel.optional(),
    repoURL: RepoUrl.optional(),
    authType: AuthTypeField.optional(),
    defaultBranch: z.preprocess(emptyIsAbsent, BranchName.optional()),
    ...credentialFields,
  })
  .superRefine(transportChecks(false))
  .transform(({ insecureSkipTLSVerify: _ignored, ...rest }) => ({ ...rest, authType: rest.authType as RepoAuthType | undefined }));
export type UpdateRepositoryRequest = z.input<typeof UpdateRepositoryRequest>;

export const TestConnectionRequest = z
  .object({
    repoURL: RepoUrl,
    authType: AuthTypeField,
    /** The project the caller may create repositories in (optional: any project they may). */
    projectId: DnsLabel.optional(),
    /** The branch to look for (default `main`). */
    defaultBranch: z.preprocess(emptyIsAbsent, BranchName.optional()),
    ...credentialFields,
  })
  .superRefine(transportChecks(true))
  .transform(({ insecureSkipTLSVerify: _ignored, ...rest }) => ({ ...rest, authType: rest.authType as RepoAuthType }));
export type TestConnectionRequest = z.input<typeof TestConnectionRequest>;

export const ValidationStatus = z.enum(['valid', 'invalid', 'unknown']);

export const RepoInfo = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  repoURL: z.string(),
  /** `https` or `ssh`; `local` for the development default (`PORTICO_GITOPS_REPO`). */
  authType: z.enum(['https', 'ssh', 'local']),
  defaultBranch: z.string(),
  createdBy: z.string(),
  createdAt: Timestamp,
  updatedBy: z.string().optional(),
  updatedAt: Timestamp.optional(),
  validationStatus: ValidationStatus,
  validationMessage: z.string().optional(),
});
export type RepoInfo = z.infer<typeof RepoInfo>;

export const RepositoryList = z.object({ items: z.array(RepoInfo), totalCount: z.number().int() });
export type RepositoryList = z.infer<typeof RepositoryList>;

export const RepositoryListQuery = z.object({ projectId: DnsLabel.optional() });
export type RepositoryListQuery = z.infer<typeof RepositoryListQuery>;

export const RepositoryParams = z.object({ id: RepositoryId });
export type RepositoryParams = z.infer<typeof RepositoryParams>;

export const ConnectionTestResult = z.object({ valid: z.boolean(), message: z.string() });
export type ConnectionTestResult = z.infer<typeof ConnectionTestResult>;

export const RepositoryTestResult = ConnectionTestResult.extend({ details: z.object({ repository: z.string(), branch: z.string() }) });
export type RepositoryTestResult = z.infer<typeof RepositoryTestResult>;
