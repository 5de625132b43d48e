/** Where a command reads and writes, and what kind of terminal it runs in; one object so tests can swap it. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /** stdout is a terminal: tables fit its width, progress bars redraw, colours may be on. */
  stdoutTTY: boolean;
  /** stdin and stdout are both terminals: the only case in which the CLI asks questions. */
  interactive: boolean;
  /** Terminal width, undefined when stdout is not a terminal (tables are then not truncated). */
  columns?: number;
  color: boolean;
  /** false: tables print their rows without the header line (`--no-headers`, set for one command run). */
  tableHeaders?: boolean;
}

/** NO_COLOR (no-color.org): any non-empty value turns colours off. */
export const colorWanted = (stdoutTTY: boolean, env: NodeJS.ProcessEnv) => stdoutTTY && !env.NO_COLOR;

export function processIo(): Io {
  const stdoutTTY = process.stdout.isTTY === true;
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    stdin: process.stdin,
    env: process.env,
    stdoutTTY,
    interactive: stdoutTTY && process.stdin.isTTY === true,
    columns: stdoutTTY ? process.stdout.columns : undefined,
    color: colorWanted(stdoutTTY, process.env),
  };
}

/** Reads all of stdin (for --password-stdin). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
  return text;
}
