// One root pino logger, created by a main file and passed down; children carry request scope.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export interface LogConfig {
  level: string;
  destination?: DestinationStream;
}

export function createLogger(config: LogConfig): Logger {
  return pino(
    {
      level: config.level,
      base: { name: 'hookkeeper' },
      // Tokens and keys never reach the log, even at debug.
      redact: ['req.headers.authorization', 'tlsKey', '*.token', '*.keyPem'],
      serializers: { err: pino.stdSerializers.err },
    },
    config.destination,
  );
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
