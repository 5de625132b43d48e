/** One change to one file of a branch: the manifest of an instance, or its removal. */
export interface GitChange {
  path: string;
  /** The new content; undefined removes the file. */
  content: string | undefined;
  /** `absent`: the file must not exist yet (a create; 409 otherwise). */
  expect: 'absent' | 'any';
  /** Subject, blank line, body. */
  message: string;
}

export interface GitWriteResult {
  /** The commit now at the branch tip that holds the change (the tip as it was when nothing changed). */
  sha: string;
  changed: boolean;
}

export interface GitFileState {
  /** Absent when the file is not on the branch (or the branch does not exist). */
  content?: string;
  /** The last commit on the branch that touched the file. */
  commit?: string;
}

/**
 * Where a deployment's files go: a remote pushed to (repositories of projects), or the development working tree
 * (`PORTICO_GITOPS_REPO`). `write` resolves once the change is on the branch where a GitOps controller reads it.
 */
export interface GitBackend {
  write(branch: string, change: GitChange): Promise<GitWriteResult>;
  /** The file on the branch as the remote has it now (or as fetched within `maxAgeMs`, when given). */
  read(branch: string, path: string, opts?: { maxAgeMs?: number }): Promise<GitFileState>;
}
