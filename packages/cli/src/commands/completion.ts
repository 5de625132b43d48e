import type { Command } from 'commander';
import type { App } from '../app.js';
import { completionScript } from '../completion.js';

export function registerCompletion(program: Command, app: App): void {
  program
    .command('completion')
    .description('print a shell completion script (bash or zsh)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') {
        program.error(`error: unsupported shell "${shell}" (bash or zsh)`, { exitCode: 2, code: 'portico.usage' });
      }
      app.io.out(completionScript(program, shell as 'bash' | 'zsh'));
    });
}
