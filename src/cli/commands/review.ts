// `hookkeeper review`: AdmissionReview JSON in on stdin, response AdmissionReview(s) out, through the same
// parse -> handle -> respond path the server uses. For scripts, CI and debugging a live denial.
import type { Command } from 'commander';
import type { Webhook } from '../../admission/handle.js';
import { AppError, describeError } from '../../errors.js';
import { ExitCode, exitCodeFor, write, type CliIO } from '../io.js';
import { readLines, type Lines } from '../../lines.js';
import { cliPolicy } from '../policy.js';
import { MAX_BODY_BYTES } from '../../server/body.js';

interface ReviewFlags {
  config?: string;
  mutate?: boolean;
  validate?: boolean;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('review')
    .description(
      'read AdmissionReview JSON on stdin (one document, or one per line) and write the responses, one per line',
    )
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
    .action(async (flags: ReviewFlags) => {
      done(await review(flags, io));
    });
}

/**
 * Splits stdin into JSON documents: the whole text if it is one document, else one per non-empty line. A line
 * (or the whole text, read as one document) may be at most MAX_BODY_BYTES, the webhook's own request limit.
 */
export function splitDocuments(input: Lines): Array<{ line: number; value?: unknown; error?: string }> {
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
        error: `stdin holds ${input.bytes} bytes, more than the ${MAX_BODY_BYTES / 1024 / 1024} MiB a single AdmissionReview may have, and is not one AdmissionReview per line`,
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
    write(io.stderr, `hookkeeper review: stdin line ${doc.line}: ${why}`);
    code = ExitCode.Usage;
  }
  return code;
}

async function review(flags: ReviewFlags, io: CliIO): Promise<number> {
  try {
    if (flags.mutate && flags.validate) throw new AppError('USAGE', 'choose one of --mutate and --validate');
    const webhook: Webhook = flags.mutate ? 'mutate' : flags.validate ? 'validate' : 'review';
    const policy = await cliPolicy(flags.config, io);
    const [{ handle }, { parseAdmissionReview }, { toAdmissionReview }] = await Promise.all([
      import('../../admission/handle.js'),
      import('../../admission/parse.js'),
      import('../../admission/response.js'),
    ]);
    const docs = splitDocuments(await readLines(io.stdin, MAX_BODY_BYTES));
    if (docs.length === 0) throw new AppError('INPUT_INVALID', 'no AdmissionReview on stdin');
    return answerDocuments(
      docs,
      (value) => {
        const parsed = parseAdmissionReview(value);
        if (!parsed.ok) return { ok: false, why: `${parsed.error}: ${parsed.problems.join('; ')}` };
        const { result } = handle(webhook, policy, parsed.review.input);
        return {
          ok: true,
          response: JSON.stringify(toAdmissionReview(parsed.review.uid, result)),
          allowed: result.allowed,
        };
      },
      io,
    );
  } catch (err) {
    write(io.stderr, `hookkeeper review: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
