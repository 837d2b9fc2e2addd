// What `hookkeeper serve` is configured with (src/transports/server/serve.ts), in its own file so the parts of the server can
// name it without an import cycle.
import type { Policy } from '../../core/policy.js';
import type { ReviewContext, ReviewInput } from '../../core/types.js';
import type { ReadFile } from './file-poll.js';

export interface ServeOptions {
  host: string;
  port: number;
  /** Policy file; none means the embedded default. */
  configFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Where generated dev certificates live when no certificate is given. */
  devCertDir: string;
  clientCaFile?: string;
  /** With mTLS, accept only client certificates whose subject CN is listed (empty: any the CA signed). */
  clientCommonNames?: readonly string[];
  /** How often mounted certificate and policy files are checked for changes. */
  reloadIntervalMs: number;
  /** How long in-flight requests may take to finish after SIGTERM. */
  shutdownGraceMs: number;
  /** Longest wait for a request's headers (default 10 s); tests use short values to check slow clients are cut off. */
  headersTimeoutMs?: number;
  /** Longest wait for a whole request, headers and body (default 30 s). */
  requestTimeoutMs?: number;
  /** Longest wait for a connection's TLS handshake (default 10 s; Node's own default is 120 s). */
  handshakeTimeoutMs?: number;
  gatherContext?: (input: ReviewInput) => ReviewContext | Promise<ReviewContext> | undefined;
  /** Told the policy in force at start and after each successful reload (e.g. to cache the parents it names). */
  onPolicy?: (policy: Policy) => void;
  /** An extra readiness condition (e.g. parent caches synced at startup). */
  ready?: () => boolean;
  /** How policy and certificate files are read (default: from disk); tests pass one that shows a file mid-write. */
  readFile?: ReadFile;
  /** The clock certificates' validity is checked against (default: the system clock). */
  now?: () => Date;
}
