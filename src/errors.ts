// Typed errors with stable codes: one place (each transport's edge) maps them to HTTP statuses or exit codes.

export type ErrorCode =
  | 'CONFIG_INVALID'      // a policy/config file failed its schema: exit 2 at start, refused on reload
  | 'INPUT_INVALID'       // a CLI input (YAML/JSON) cannot be read: exit 2
  | 'USAGE'               // wrong flags: exit 2
  | 'TLS_INVALID'         // certificate/key pair cannot be loaded, or the certificate has expired
  | 'TLS_NOT_YET_VALID'   // the certificate's validity starts later: refused now, usable later
  | 'CLUSTER'             // the API server is unreachable, refuses us, or lacks a CRD: exit 3
  | 'LOOKUP_TIMEOUT'      // a live lookup did not answer within its budget
  | 'INTERNAL';

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
