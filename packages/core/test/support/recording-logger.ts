import { createLogger } from '../../src/logger.js';

/** A logger whose records the test can read. */
export function recordingLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = createLogger('debug', {
    write(chunk: string) {
      lines.push(JSON.parse(chunk));
      return true;
    },
  } as unknown as NodeJS.WritableStream);
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40) };
}
