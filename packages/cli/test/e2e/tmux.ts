import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Marker the wrapper shell prints after the command, so a test can read the exit code off the screen. */
const EXIT_MARK = '__PORTICO_EXIT__=';

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TerminalSession {
  readonly name: string;
  /** The visible pane as text (escape sequences stripped by tmux). */
  screen(): string;
  /** Waits until the screen matches `pattern`; the error shows the screen when it never does. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Waits for the command to end and returns its exit code. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** Types `text` literally (no key-name interpretation). */
  type(text: string): void;
  press(key: 'Enter' | 'Up' | 'Down' | 'C-c'): void;
  /** Kills the session and its private tmux server; safe to call twice. */
  kill(): void;
}

/**
 * Runs `command` in a detached tmux session (a real pseudo-terminal, 200×50) on a private tmux socket, with
 * exactly `env` as its environment. The pane stays open after the command ends, showing the exit marker.
 */
export function startTerminal(command: string[], env: Record<string, string>): TerminalSession {
  // A socket of our own (not the user's tmux server), removed again by kill().
  const socket = join(tmpdir(), `portico-e2e-tmux-${process.pid}-${randomBytes(4).toString('hex')}`);
  const name = 'portico';
  const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  const script = `env -i ${assignments.join(' ')} ${command.map(shellQuote).join(' ')}; echo "${EXIT_MARK}$?"; sleep 600`;
  tmux('new-session', '-d', '-s', name, '-x', '200', '-y', '50', script);
  let killed = false;

  const session: TerminalSession = {
    name,
    screen: () => tmux('capture-pane', '-p', '-t', name),
    async waitFor(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = session.screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern} within ${timeoutMs} ms; screen:\n${text.trimEnd()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async exitCode(timeoutMs) {
      const text = await session.waitFor(new RegExp(`${EXIT_MARK}\\d+`), timeoutMs);
      return Number(new RegExp(`${EXIT_MARK}(\\d+)`).exec(text)![1]);
    },
    type: (text) => void tmux('send-keys', '-t', name, '-l', text),
    press: (key) => void tmux('send-keys', '-t', name, key),
    kill() {
      if (killed) return;
      killed = true;
      try {
        tmux('kill-session', '-t', name);
      } catch {
        // already gone
      }
      try {
        tmux('kill-server');
      } catch {
        // the server ends with its last session
      }
      rmSync(socket, { force: true });
    },
  };
  return session;
}
