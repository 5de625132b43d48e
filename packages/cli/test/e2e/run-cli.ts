import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The BUILT binary, as users run it (`npm test` builds first; or `cd packages/cli && npx tsup`). */
export const cliBin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export function assertCliBuilt(): void {
  if (!existsSync(cliBin)) throw new Error(`${cliBin} is missing: run npm run build first`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliUser {
  /** `HOME` of this user: the config file lives under it unless `PORTICO_CONFIG` says otherwise. */
  home: string;
  configFile: string;
}

/**
 * Runs `portico …` without a terminal (pipes) as `user`: a private HOME and config file, and nothing inherited
 * from the caller's environment but PATH (no PORTICO_* leaking in).
 */
export function runCli(user: CliUser, args: string[], opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: user.home, PORTICO_CONFIG: user.configFile, ...opts.env };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
