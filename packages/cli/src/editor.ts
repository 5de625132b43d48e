import { spawnSync } from 'node:child_process';
import { CliError, ExitCode } from './exit-codes.js';
import type { Io } from './io.js';

/** `$VISUAL`, else `$EDITOR`, else vi: what git and kubectl open. */
const editorCommand = (env: NodeJS.ProcessEnv) => env.VISUAL || env.EDITOR || 'vi';

/**
 * Opens `file` in the user's editor on this terminal and waits for it to close. The command goes through the
 * shell because editors are often set with arguments (`code --wait`).
 */
export function openEditor(io: Io, file: string): void {
  const editor = editorCommand(io.env);
  const res = spawnSync(`${editor} '${file.replace(/'/g, `'\\''`)}'`, { shell: true, stdio: 'inherit', env: io.env });
  if (res.error) throw new CliError(`cannot run the editor "${editor}": ${res.error.message}`, ExitCode.failure);
  if (res.status !== 0) throw new CliError(`the editor "${editor}" exited with ${res.status ?? res.signal}; nothing was changed`, ExitCode.failure);
}
