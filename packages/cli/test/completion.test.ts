import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, createProgram, completionScript, type Io } from '../src/index.js';

const io: Io = {
  out: () => undefined,
  err: () => undefined,
  stdin: process.stdin,
  env: {},
  stdoutTTY: false,
  interactive: false,
  color: false,
};
const program = createProgram(createApp(io));
const dir = mkdtempSync(join(tmpdir(), 'portico-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the bash script as bash would on TAB after `words`, returning the candidates. */
function complete(words: string[]): string[] {
  const script = join(dir, 'portico.bash');
  writeFileSync(script, completionScript(program, 'bash'));
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', ['-c', `source ${script}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _portico; echo "\${COMPREPLY[*]}"`], {
    encoding: 'utf8',
  });
  return out.trim().split(/\s+/).filter(Boolean);
}

describe('completion', () => {
  it('completes top-level commands', () => {
    expect(complete(['portico', ''])).toEqual(expect.arrayContaining(['login', 'logout', 'context', 'rgd', 'project', 'instance', 'account', 'can-i', 'completion']));
    expect(complete(['portico', 'pro'])).toEqual(['project']);
  });

  it('completes subcommands at every level, skipping options on the way', () => {
    expect(complete(['portico', 'rgd', ''])).toEqual(expect.arrayContaining(['list', 'get']));
    expect(complete(['portico', '--server', 'project', 'role', ''])).toEqual(expect.arrayContaining(['bindings', 'bind', 'unbind', 'change']));
    expect(complete(['portico', 'instance', 'c'])).toEqual(['create']);
  });

  it("completes a command's options, global ones included", () => {
    const opts = complete(['portico', 'instance', 'create', 'Postgres', 'db', '--']);
    expect(opts).toEqual(expect.arrayContaining(['--project', '--namespace', '--set', '--set-string', '--wait', '--timeout', '--server', '--token']));
    expect(complete(['portico', 'rgd', 'list', '--o'])).toEqual(['--output']);
  });

  it('prints a zsh script registering the same words', () => {
    const zsh = completionScript(program, 'zsh');
    expect(zsh.startsWith('#compdef portico')).toBe(true);
    expect(zsh).toContain('compdef _portico portico');
    expect(zsh).toContain('"project role") echo "bindings bind unbind change');
  });
});
