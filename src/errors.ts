// Typed errors with stable codes, each carrying its exit code (one table, below); the server maps them to HTTP statuses.

/** Documented exit codes, one meaning each, shared by every command (README: "Exit codes"). */
export const ExitCode = {
  /** Nothing denied, nothing found. */
  Ok: 0,
  /** Something was denied (review, validate) or found (audit). */
  Violations: 1,
  /** Usage, input, policy or certificate error, or serve could not start. */
  Usage: 2,
  /** The cluster could not be reached, refused us, or lacks what we need. */
  Cluster: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type ErrorCode =
  | 'CONFIG_INVALID' // a policy/config file failed its schema or checks: refused at start and on reload
  | 'INPUT_INVALID' // a CLI input (YAML/JSON) cannot be read
  | 'USAGE' // wrong flags
  | 'TLS_INVALID' // certificate/key pair cannot be loaded, or the certificate has expired
  | 'TLS_NOT_YET_VALID' // the certificate's validity starts later: refused now, usable later
  | 'CLUSTER' // the API server is unreachable, refuses us, or lacks a CRD
  | 'LOOKUP_TIMEOUT' // a live lookup did not answer within its budget
  | 'INTERNAL';

/** The one place an error becomes an exit code. */
const EXIT_CODES: Readonly<Record<ErrorCode, ExitCode>> = {
  CONFIG_INVALID: ExitCode.Usage,
  INPUT_INVALID: ExitCode.Usage,
  USAGE: ExitCode.Usage,
  TLS_INVALID: ExitCode.Usage,
  TLS_NOT_YET_VALID: ExitCode.Usage,
  INTERNAL: ExitCode.Usage,
  CLUSTER: ExitCode.Cluster,
  LOOKUP_TIMEOUT: ExitCode.Cluster,
};

export interface Problem {
  /** Where: a file, or another source such as "HOOKKEEPER_CONFIG". */
  file?: string;
  /** JSON pointer-ish path inside the document, e.g. "/rules/deletionFreeze". */
  path?: string;
  line?: number;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly problems: readonly Problem[];

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; problems?: readonly Problem[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.problems = options.problems ?? [];
  }

  get exitCode(): ExitCode {
    return EXIT_CODES[this.code];
  }
}

/**
 * The exit code of a command that failed with `err`. An error that is not an AppError (a port in use, a file system
 * fault) stopped the command before it could judge anything: 2, never 1, which means "denied".
 */
export function exitCodeFor(err: unknown): ExitCode {
  return err instanceof AppError ? err.exitCode : ExitCode.Usage;
}

/** Formats an error with its problems for a terminal: one problem a line, "file:line path: message". */
export function describeError(err: unknown): string {
  if (err instanceof AppError) {
    const lines = err.problems.map((p) => {
      const where = [p.file, p.line === undefined ? undefined : String(p.line)].filter(Boolean).join(':');
      return `  ${[where, p.path].filter(Boolean).join(' ')}${where || p.path ? ': ' : ''}${p.message}`;
    });
    return [err.message, ...lines].join('\n');
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
