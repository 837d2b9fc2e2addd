// `hookkeeper review`: AdmissionReview JSON in on stdin, response AdmissionReview(s) out, through the same
// parse -> handle -> respond path the server uses. For scripts, CI and debugging a live denial.
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { collect, flagError } from '../flags.js';
import type { Handling } from '../../../admission/handle.js';
import { isRecord } from '../../../core/guards.js';
import { AppError, describeError } from '../../../errors.js';
import { ExitCode, exitCodeFor, write, writeText, type CliIO } from '../io.js';
import { readLines, type Lines } from '../../../infrastructure/lines.js';
import { cliPolicy } from '../policy.js';
import { MAX_BODY_BYTES } from '../../server/body.js';

interface ReviewFlags {
  filename: string[];
  config?: string;
  mutate?: boolean;
  validate?: boolean;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('review')
    .description(
      'read AdmissionReview JSON (one document, or one per line) from files or stdin and write the responses, one per line',
    )
    .argument('[file...]', 'files to read, in order; - (or none at all) for stdin')
    .option('-f, --filename <file>', 'a file to read after the positional ones, - for stdin (repeatable)', collect, [])
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option('--mutate', 'answer as the mutating webhook (/mutate) only')
    .option('--validate', 'answer as the validating webhook (/validate) only')
    .addHelpText(
      'after',
      '\nWithout --mutate or --validate, the object is mutated and the mutated object validated;\n' +
        'the response carries the patch and the final decision.\n\nExit codes: 0 all allowed, 1 something denied, 2 usage or input error\n' +
        '(a line that is not an AdmissionReview, or cannot be evaluated, is reported with its line number; the others are\n' +
        'still answered).',
    )
    .action(async (files: string[], flags: ReviewFlags) => {
      done(await review([...files, ...flags.filename], flags, io));
    });
}

/**
 * Splits stdin into JSON documents: the whole text if it is one document, else one per non-empty line. A line
 * (or the whole text, read as one document) may be at most MAX_BODY_BYTES, the webhook's own request limit.
 */
export function splitDocuments(
  input: Lines,
  source = 'stdin',
): Array<{ line: number; value?: unknown; error?: string }> {
  if (input.bytes <= MAX_BODY_BYTES) {
    try {
      return [{ line: 1, value: JSON.parse(input.lines.join('\n')) as unknown }];
    } catch {
      // not one document: try JSON Lines
    }
  }
  const docs: Array<{ line: number; value?: unknown; error?: string }> = [];
  const first = input.lines.findIndex((l) => l === null || l.trim() !== '');
  const head = first === -1 ? undefined : input.lines[first];
  if (input.bytes > MAX_BODY_BYTES && typeof head === 'string' && !isJson(head)) {
    // Not JSON Lines, and too large to be one document: one error, not one per line of a pretty-printed document.
    return [
      {
        line: first + 1,
        error: `${source} holds ${input.bytes} bytes, more than the ${MAX_BODY_BYTES / 1024 / 1024} MiB a single AdmissionReview may have, and is not one AdmissionReview per line`,
      },
    ];
  }
  input.lines.forEach((raw, i) => {
    if (raw === null) {
      docs.push({
        line: i + 1,
        error: `longer than ${MAX_BODY_BYTES / 1024 / 1024} MiB, the webhook's request limit (an AdmissionReview holds two objects of at most 3 MiB each)`,
      });
      return;
    }
    if (raw.trim() === '') return;
    try {
      docs.push({ line: i + 1, value: JSON.parse(raw) as unknown });
    } catch (err) {
      docs.push({ line: i + 1, error: `not JSON: ${(err as Error).message}` });
    }
  });
  return docs;
}

const FOR_MANIFESTS =
  'review answers what the API server sends a webhook; to check manifests, run `hookkeeper validate -`';

/**
 * Whether stdin opens as YAML (a document marker, a comment or a `key:` line) rather than JSON: manifests piped to the
 * wrong command get one line saying which command reads them, not one "not JSON" per line.
 */
function opensAsYaml(input: Lines): boolean {
  const head = input.lines.find((l) => l === null || l.trim() !== '');
  return typeof head === 'string' && !isJson(head) && /^(---|%YAML|#|[A-Za-z_"'][^:{}[\]]*:(\s|$))/.test(head);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** One document's answer: its response line and whether it allowed, or why it is not an AdmissionReview. */
export type Answer = (value: unknown) => { ok: true; response: string; allowed: boolean } | { ok: false; why: string };

/**
 * Answers each document in turn. A document that is not JSON or not an AdmissionReview, or whose evaluation throws,
 * is reported on stderr with its line number and makes the exit code 2; the documents after it are still answered.
 */
export function answerDocuments(
  docs: ReturnType<typeof splitDocuments>,
  answer: Answer,
  io: Pick<CliIO, 'stdout' | 'stderr'>,
  source = 'stdin',
): ExitCode {
  let code: ExitCode = ExitCode.Ok;
  for (const doc of docs) {
    let why = doc.error;
    if (why === undefined) {
      try {
        const out = answer(doc.value);
        if (out.ok) {
          write(io.stdout, out.response);
          if (!out.allowed && code === ExitCode.Ok) code = ExitCode.Violations;
          continue;
        }
        why = out.why;
      } catch (err) {
        why = `cannot evaluate: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
      }
    }
    writeText(io.stderr, `hookkeeper review: ${source} line ${doc.line}: ${why}`);
    code = ExitCode.Usage;
  }
  return code;
}

/** The inputs in order: a file path, or '-' for stdin (once; no input at all means stdin). */
function inputs(given: readonly string[]): string[] {
  if (given.filter((f) => f === '-').length > 1) throw new AppError('USAGE', 'stdin (-) may be given once');
  return given.length === 0 ? ['-'] : [...given];
}

/** One input's lines, at most MAX_BODY_BYTES each, as splitDocuments takes them. */
async function readInput(file: string, io: CliIO): Promise<Lines> {
  if (file === '-') return readLines(io.stdin, MAX_BODY_BYTES);
  try {
    const stream = createReadStream(resolve(io.cwd, file));
    return await readLines(stream, MAX_BODY_BYTES);
  } catch (cause) {
    throw new AppError('INPUT_INVALID', `cannot read ${file}: ${(cause as Error).message}`, { cause });
  }
}

async function review(files: readonly string[], flags: ReviewFlags, io: CliIO): Promise<number> {
  try {
    if (flags.mutate && flags.validate)
      throw flagError('--validate', 'cannot go with --mutate', 'give one of them, or neither to mutate then validate');
    const sources = inputs(files);
    const handling: Handling = flags.mutate ? 'mutate' : flags.validate ? 'validate' : 'mutate-then-validate';
    const policy = await cliPolicy(flags.config, io);
    const [{ handle }, { parseAdmissionReview }, { toAdmissionReview }] = await Promise.all([
      import('../../../admission/handle.js'),
      import('../../../admission/parse.js'),
      import('../../../admission/response.js'),
    ]);
    const answer: Answer = (value) => {
      // An object of another kind (a Machine, a List): the manifest itself, meant for validate.
      const kind = isRecord(value) ? value['kind'] : undefined;
      if (typeof kind === 'string' && kind !== 'AdmissionReview' && isRecord(value) && 'apiVersion' in value)
        return { ok: false, why: `a ${kind}, not an AdmissionReview: ${FOR_MANIFESTS}` };
      const parsed = parseAdmissionReview(value);
      if (!parsed.ok) return { ok: false, why: `${parsed.error}: ${parsed.problems.join('; ')}` };
      const { result } = handle(handling, policy, parsed.review.input);
      return {
        ok: true,
        response: JSON.stringify(toAdmissionReview(parsed.review.uid, result)),
        allowed: result.allowed,
      };
    };
    let code: ExitCode = ExitCode.Ok;
    for (const file of sources) {
      const name = file === '-' ? 'stdin' : file;
      const input = await readInput(file, io);
      if (opensAsYaml(input))
        throw new AppError('INPUT_INVALID', `${name} is YAML, not AdmissionReview JSON: ${FOR_MANIFESTS}`);
      const docs = splitDocuments(input, name);
      if (docs.length === 0)
        throw new AppError('INPUT_INVALID', `no AdmissionReview ${file === '-' ? 'on stdin' : `in ${name}`}`);
      code = worse(code, answerDocuments(docs, answer, io, name));
    }
    return code;
  } catch (err) {
    writeText(io.stderr, `hookkeeper review: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}

/** Usage or input errors outrank a denial, which outranks all allowed. */
function worse(a: ExitCode, b: ExitCode): ExitCode {
  const rank = (c: ExitCode): number => (c === ExitCode.Ok ? 0 : c === ExitCode.Violations ? 1 : 2);
  return rank(b) > rank(a) ? b : a;
}
