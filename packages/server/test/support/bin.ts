import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built bin, as `npm start` runs it (the root `npm test` builds first). */
export const serverBin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export interface BinProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything written so far. */
  out(): string;
  err(): string;
}

/**
 * Runs the bin with exactly `env` (plus PATH), so nothing leaks in from the test runner's environment; `args`
 * for a subcommand (`admin reset-password`), `stdin` for what it reads.
 */
export function runBin(env: Record<string, string>, args: string[] = [], stdin?: string): BinProcess {
  const child = spawn(process.execPath, [serverBin, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

export async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for the "Portico listening on <url>" line and returns the URL. */
export const listeningUrl = (p: BinProcess) =>
  waitFor(() => /Portico listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())?.[1], `the listening line (stderr: ${p.err()})`);

/** The JSON log lines written to stdout (pino), skipping anything that is not JSON. */
export function logLines(p: BinProcess): Record<string, unknown>[] {
  return p
    .out()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** SIGTERM, and the exit code. */
export async function stop(p: BinProcess): Promise<number | null> {
  p.child.kill('SIGTERM');
  return p.exited;
}

/** The password of the framed block a development start or `admin reset-password` prints. */
export const boxedPassword = (p: BinProcess) => /export PORTICO_PASSWORD='([^']+)'/.exec(p.out())?.[1];
