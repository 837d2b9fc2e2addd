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
      // Tokens and keys never reach the log, even at debug. Exact paths only: a wildcard ('*.token') made every
      // line walk its keys, which doubles the cost of the per-request line (BENCHMARKS.md).
      redact: ['req.headers.authorization', 'tlsKey'],
      serializers: { err: pino.stdSerializers.err },
    },
    config.destination,
  );
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
