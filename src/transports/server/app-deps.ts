// What createApp is given (src/transports/server/app.ts), in its own file so the parts of the app can name it without an
// import cycle.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Policy } from '../../core/policy.js';
import type { ReviewContext, ReviewInput } from '../../core/types.js';
import type { Logger } from '../../infrastructure/log.js';
import type { Metrics } from './metrics.js';

export interface AppDeps {
  /** The policy in force; a getter so hot reload swaps it between requests. */
  policy: () => Policy;
  logger: Logger;
  metrics: Metrics;
  /** True once policy and TLS are loaded (and, in serve, while not shutting down). */
  ready: () => boolean;
  /**
   * Cluster facts some rules need (child resources' parents, hook owners' grants); looked up by the transport.
   * A value when known from memory, a promise when it must be asked for, undefined when none is needed.
   */
  gatherContext?: (input: ReviewInput) => ReviewContext | Promise<ReviewContext> | undefined;
  bodyLimit?: number;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
