import { spawn } from 'node:child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface GitRunOptions {
  cwd?: string;
  env: Record<string, string>;
  /** Killed (with everything it started: ssh, askpass, remote helpers) after this long. */
  timeoutMs: number;
  input?: string;
}

/** Output kept per stream: the end of a long stderr is what explains a failure. */
const maxOutput = 1 << 20;

/**
 * Runs one git command in its own process group with exactly `env` (nothing inherited: no proxy variables, no
 * credential helpers, no user configuration), and never longer than `timeoutMs`. Credentials never appear in
 * `args`: they reach git through the environment and files the caller prepared.
 */
export function runGit(args: readonly string[], opts: GitRunOptions): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = spawn('git', [...args], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outSize = 0;
    let errSize = 0;
    let timedOut = false;
    const keep = (chunks: Buffer[], size: number, chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      while (size > maxOutput && chunks.length > 1) size -= chunks.shift()!.length;
      return size;
    };
    child.stdout.on('data', (c: Buffer) => (outSize = keep(out, outSize, c)));
    child.stderr.on('data', (c: Buffer) => (errSize = keep(err, errSize, c)));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
    const finish = (code: number) => {
      clearTimeout(timer);
      // A helper left running by a killed git (ssh waiting on a dead server) goes with its group.
      if (timedOut) killGroup();
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut });
    };
    child.on('error', (e) => {
      err.push(Buffer.from(`fatal: could not run git: ${e.message}\n`));
      finish(127);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}
