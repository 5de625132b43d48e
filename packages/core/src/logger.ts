import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs at LOG_LEVEL; secrets never go through here except the one-time admin password notice. */
export const createLogger = (level: string = 'info', destination?: NodeJS.WritableStream): Logger =>
  pino({ level, base: { service: 'portico' }, timestamp: pino.stdTimeFunctions.isoTime }, destination as never);
