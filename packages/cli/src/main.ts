import { PorticoApiError } from '@portico/client';
import { CommanderError } from 'commander';
import { createApp } from './app.js';
import { completeWords } from './commands/completion.js';
import { ExitCode, errorLine, exitCodeFor, sessionExpired, tokenRefused, CliError, violationLines } from './exit-codes.js';
import { processIo, type Io } from './io.js';
import { createProgram } from './program.js';
import { isPromptCancel } from './prompts.js';

/** Runs `portico` with `argv` (as process.argv: node, script, args…) and returns the exit code. */
export async function run(argv: string[], io: Io = processIo()): Promise<number> {
  const app = createApp(io);
  const program = createProgram(app);
  try {
    if (argv[2] === '__complete') {
      await completeWords(program, app, argv.slice(3));
      return ExitCode.ok;
    }
    await program.parseAsync(argv);
    return app.exitCode ?? ExitCode.ok;
  } catch (e) {
    // commander has already printed its message (or the help / version text)
    if (e instanceof CommanderError) return e.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    let error = e;
    if (app.usedToken && error instanceof PorticoApiError && error.status === 401) error = app.tokenGiven ? tokenRefused() : sessionExpired();
    if (isPromptCancel(error)) error = new CliError('cancelled', ExitCode.usage);
    io.err(`${errorLine(error)}\n`);
    for (const line of violationLines(error)) io.err(`${line}\n`);
    return exitCodeFor(error);
  }
}
