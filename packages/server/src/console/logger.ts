import { createLogger, type Logger, type PorticoConfig } from '@portico/core';
import pretty from 'pino-pretty';

/**
 * JSON lines for collectors and for programs reading the output; one readable line per entry for a person:
 * by default in development when stdout is a terminal (`npm start`), or wherever LOG_FORMAT=pretty asks.
 * Synchronous, so the lines interleave correctly with the password box.
 */
export function consoleLogger(config: Pick<PorticoConfig, 'profile' | 'logLevel' | 'logFormat'>): Logger {
  const readable = config.logFormat ? config.logFormat === 'pretty' : config.profile === 'development' && process.stdout.isTTY === true;
  if (!readable) return createLogger(config.logLevel);
  const stream = pretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname,service', singleLine: true });
  return createLogger(config.logLevel, stream);
}
