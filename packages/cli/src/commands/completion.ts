import type { Command } from 'commander';
import type { App } from '../app.js';
import { configPath, loadConfig } from '../config.js';
import { completionCandidates, completionScript, type NameKind } from '../completion.js';

const shells = ['bash', 'zsh', 'fish'] as const;

/** Real names for TAB, from the current context; any failure (offline, signed out) just offers nothing. */
async function lookupNames(app: App, program: Command, kind: NameKind, positional: string[]): Promise<string[]> {
  try {
    if (kind === 'contexts') return (await loadConfig(configPath(app.io.env))).contexts.map((c) => c.name);
    const { client } = await app.session(program);
    const opts = { timeoutMs: 3000 };
    switch (kind) {
      case 'projects':
        return (await client.projects.list(opts)).items.map((p) => p.name);
      case 'accounts':
        return (await client.accounts.list(opts)).items.map((a) => a.username);
      case 'rgds':
        return (await client.rgds.list({ pageSize: 500 }, opts)).items.map((r) => r.name);
      case 'kinds':
        return (await client.rgds.list({ pageSize: 500 }, opts)).items.map((r) => r.kind);
      case 'instances':
        return (await client.instances.list({ kind: positional[0], pageSize: 500 }, opts)).items.map((i) => i.name);
    }
  } catch {
    return [];
  }
}

export function registerCompletion(program: Command, app: App): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish); TAB then completes commands, options and names')
    .argument('<shell>', shells.join(', '))
    .action((shell: string) => {
      if (!(shells as readonly string[]).includes(shell)) {
        program.error(`error: unsupported shell "${shell}" (${shells.join(', ')})`, { exitCode: 2, code: 'portico.usage' });
      }
      app.io.out(completionScript(program, shell as (typeof shells)[number]));
    });
}

/**
 * `portico __complete WORD… CURRENT`, what the completion scripts run on TAB: one candidate per line. Handled
 * before commander parses anything, since the words hold options (`-v`, `--help`) commander would act on.
 */
export async function completeWords(program: Command, app: App, words: string[]): Promise<void> {
  const current = words.length ? words[words.length - 1] : '';
  const candidates = await completionCandidates(program, words.slice(0, -1), current, (kind, positional) => lookupNames(app, program, kind, positional));
  app.io.out(candidates.map((c) => `${c}\n`).join(''));
}
