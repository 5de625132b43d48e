import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completionCandidates, type NameKind } from '../src/completion.js';
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

const asked: [NameKind, string[]][] = [];
const names: Record<NameKind, string[]> = {
  projects: ['alpha', 'beta'],
  rgds: ['web-app', 'postgres-database'],
  kinds: ['WebApp', 'Postgres'],
  instances: ['shop', 'orders'],
  contexts: ['prod', 'staging'],
  accounts: ['dana'],
};
const candidates = (...words: string[]) =>
  completionCandidates(program, words.slice(0, -1), words[words.length - 1], async (kind, positional) => {
    asked.push([kind, positional]);
    return names[kind];
  });

describe('completion candidates', () => {
  it('completes commands at every level, skipping options and their values on the way', async () => {
    expect(await candidates('')).toEqual(expect.arrayContaining(['login', 'logout', 'context', 'rgd', 'project', 'instance', 'account', 'can-i', 'completion', 'version']));
    expect(await candidates('pro')).toEqual(['project']);
    expect(await candidates('--server', 'http://x', 'project', 'role', '')).toEqual(['add-policy', 'bind', 'bindings', 'change', 'create', 'delete', 'remove-policy', 'unbind']);
    expect(await candidates('instance', 'c')).toEqual(['children', 'create']);
  });

  it("completes a command's options, global ones included, and an option's choices", async () => {
    const opts = await candidates('instance', 'create', 'Postgres', 'db', '--');
    expect(opts).toEqual(expect.arrayContaining(['--project', '--namespace', '--set', '--set-string', '--wait', '--timeout', '--server', '--token']));
    expect(opts).not.toContain('--version');
    expect(await candidates('rgd', 'list', '--o')).toEqual(['--output']);
    expect(await candidates('instance', 'create', 'X', 'y', '--mode', '')).toEqual(['direct', 'gitops', 'hybrid']);
  });

  it('completes the list flags of kubectl: -l/--selector, -A/--all-projects and --no-headers', async () => {
    expect(await candidates('instance', 'list', '--')).toEqual(expect.arrayContaining(['--selector', '--all-projects', '--no-headers']));
    expect(await candidates('instance', 'list', '-')).toEqual(expect.arrayContaining(['-l', '-A']));
    expect(await candidates('rgd', 'list', '--s')).toEqual(['--search', '--selector', '--server']);
    expect(await candidates('secret', 'list', '--a')).toEqual(['--all-projects']);
    expect(await candidates('project', 'token', 'list', '--a')).toEqual(['--all-projects']);
    expect(await candidates('account', 'list', '--no')).toEqual(['--no-headers']);
    // A selector is typed, not looked up: nothing is offered for its value.
    expect(await candidates('instance', 'list', '-l', '')).toEqual([]);
  });

  it('offers the names each argument stands for, with the kind typed before an instance name', async () => {
    asked.length = 0;
    expect(await candidates('project', 'get', 'a')).toEqual(['alpha']);
    expect(await candidates('rgd', 'get', '')).toEqual(['postgres-database', 'web-app']);
    expect(await candidates('instance', 'delete', 'W')).toEqual(['WebApp']);
    expect(await candidates('instance', 'delete', 'WebApp', '-n', 'dev', 's')).toEqual(['shop']);
    expect(await candidates('context', 'rename', '')).toEqual(['prod', 'staging']);
    expect(await candidates('instance', 'list', '--project', '')).toEqual(['alpha', 'beta']);
    expect(asked).toContainEqual(['instances', ['WebApp']]);
    // past the last argument, and for free text, nothing is looked up
    asked.length = 0;
    expect(await candidates('project', 'get', 'alpha', '')).toEqual([]);
    expect(await candidates('project', 'create', '')).toEqual([]);
    expect(asked).toEqual([]);
  });
});

describe('completion scripts (each shell runs its script; a stand-in portico on PATH answers __complete)', () => {
  const bin = join(dir, 'bin');
  const argsFile = join(dir, 'args');
  mkdirSync(bin, { recursive: true });
  // Records the arguments it got and answers like __complete, one candidate per line (one with a space).
  writeFileSync(join(bin, 'portico'), `#!/bin/sh\nprintf '%s|' "$@" > ${argsFile}\nprintf 'alpha\\nalpha two\\n'\n`);
  chmodSync(join(bin, 'portico'), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH}`, HOME: dir };
  const script = (shell: 'bash' | 'zsh' | 'fish') => {
    const path = join(dir, `portico.${shell}`);
    writeFileSync(path, completionScript(program, shell));
    return path;
  };
  const run = (shell: string, code: string) => execFileSync(shell, ['-c', code], { encoding: 'utf8', env }).trim().split('\n');
  const args = () => readFileSync(argsFile, 'utf8');

  it('bash', () => {
    expect(run('bash', `source ${script('bash')}; COMP_WORDS=(portico project get al); COMP_CWORD=3; _portico; printf '%s\\n' "\${COMPREPLY[@]}"`)).toEqual(['alpha', 'alpha two']);
    expect(args()).toBe('__complete|project|get|al|');
  });

  it('zsh', () => {
    // compadd only works inside the completion system: stand in for it to see what the function offers.
    const out = run('zsh', `compdef() { :; }; source ${script('zsh')}; compadd() { shift; print -l -- "$@"; }; words=(portico project get ''); CURRENT=4; _portico`);
    expect(out).toEqual(['alpha', 'alpha two']);
    expect(args()).toBe('__complete|project|get||');
  });

  it('fish', () => {
    expect(run('fish', `source ${script('fish')}; complete -C 'portico project get al'`)).toEqual(['alpha', 'alpha two']);
    expect(args()).toBe('__complete|project|get|al|');
  });
});
