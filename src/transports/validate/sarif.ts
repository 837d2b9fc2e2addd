// `validate --output sarif`: a SARIF 2.1.0 log (OASIS), the format code-scanning services (GitHub code scanning,
// GitLab, Azure DevOps) import. One result per finding; input problems and notes are tool notifications.
import { RULES } from '../../core/registry.js';
import { HOMEPAGE, readVersion } from '../../infrastructure/version.js';
import {
  annotate,
  type FindingAnnotation,
  type NoteAnnotation,
  type ProblemAnnotation,
  type Subject,
} from './annotations.js';
import { inWorkingTree, type ValidateReport } from './report.js';

// The few SARIF 2.1.0 shapes written here (§3 of the specification); the tests check them against its schema.
interface Region {
  startLine: number;
}
interface PhysicalLocation {
  artifactLocation: { uri: string; uriBaseId?: string };
  region?: Region;
}
interface Location {
  id?: number;
  physicalLocation?: PhysicalLocation;
  logicalLocations?: Array<{ fullyQualifiedName: string; kind: string }>;
  message?: { text: string };
}
interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: 'error' | 'warning';
  message: { text: string };
  locations: Location[];
  relatedLocations?: Location[];
}
interface Notification {
  level: 'error' | 'note';
  message: { text: string };
  locations?: Location[];
}
interface ReportingDescriptor {
  id: string;
  shortDescription: { text: string };
}
export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: Array<{
    tool: { driver: { name: string; version: string; informationUri: string; rules: ReportingDescriptor[] } };
    originalUriBaseIds?: Record<string, { description: { text: string } }>;
    invocations: Array<{ executionSuccessful: boolean; toolExecutionNotifications: Notification[] }>;
    results: SarifResult[];
  }>;
}

/** The OASIS-published schema of SARIF 2.1.0 (with errata 01). */
export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** A report path as a relative URI reference: "/" separators, each segment percent-encoded (RFC 3986). */
export function fileUri(file: string): string {
  return file
    .split(/[\\/]/)
    .map((segment, i) => (i === 0 && segment === '' ? '' : encodeURIComponent(segment)))
    .join('/');
}

/**
 * The uriBaseId of a file at --old-ref's revision: its path is relative as a working tree file's is, but names the
 * file as it was there, so a consumer does not take it for the checkout's (run.originalUriBaseIds says which revision).
 */
const OLD_REF_BASE = 'OLD_REF';

/** A file and line in the working tree, or at --old-ref's revision (under OLD_REF_BASE); none for stdin. */
function physical(report: ValidateReport, file: string, line: number | undefined): Pick<Location, 'physicalLocation'> {
  const region = line === undefined ? {} : { region: { startLine: line } };
  if (inWorkingTree(report, file)) return { physicalLocation: { artifactLocation: { uri: fileUri(file) }, ...region } };
  const atRef = report.oldRef === undefined ? undefined : oldRefPath(report.oldRef, file);
  if (atRef === undefined) return {};
  return { physicalLocation: { artifactLocation: { uri: fileUri(atRef), uriBaseId: OLD_REF_BASE }, ...region } };
}

/** The path of an old file read at --old-ref ("REF:path"), or undefined for any other file. */
function oldRefPath(ref: string, file: string): string | undefined {
  return file.startsWith(`${ref}:`) ? file.slice(ref.length + 1) : undefined;
}

/** Where a location must be in the checkout (a result's own, a notification's): never at the old revision. */
function checkedOut(
  report: ValidateReport,
  file: string,
  line: number | undefined,
): Pick<Location, 'physicalLocation'> {
  return inWorkingTree(report, file) ? physical(report, file, line) : {};
}

function objectLocation(report: ValidateReport, subject: Subject, line: number): Location {
  return {
    ...checkedOut(report, subject.file, line),
    logicalLocations: [{ fullyQualifiedName: subject.object, kind: 'object' }],
  };
}

function resultFor(report: ValidateReport, a: FindingAnnotation, ruleIndex: (id: string) => number): SarifResult {
  return {
    ruleId: a.rule,
    ruleIndex: ruleIndex(a.rule),
    level: a.level,
    message: { text: a.message },
    // Something only the old version has (a removed hook) is reported at the object that lost it, with the old
    // version's place beside it.
    locations: [objectLocation(report, a.subject, a.line)],
    ...(a.old
      ? {
          relatedLocations: [
            {
              id: 1,
              ...physical(report, a.old.file, a.old.line),
              message: { text: `the old version: ${a.old.place}` },
            },
          ],
        }
      : {}),
  };
}

function problemNotification(report: ValidateReport, a: ProblemAnnotation): Notification {
  return {
    level: 'error',
    message: { text: a.message },
    ...(a.file === undefined || !inWorkingTree(report, a.file)
      ? {}
      : { locations: [checkedOut(report, a.file, a.line)] }),
  };
}

function noteNotification(report: ValidateReport, a: NoteAnnotation): Notification {
  if (!a.subject) return { level: 'note', message: { text: a.text } };
  return {
    level: 'note',
    message: { text: `${a.subject.title}: ${a.text}` },
    locations: [objectLocation(report, a.subject, a.subject.line)],
  };
}

export function toSarif(report: ValidateReport): SarifLog {
  const rules: ReportingDescriptor[] = [];
  const indexOf = new Map<string, number>();
  const ruleIndex = (id: string): number => {
    let i = indexOf.get(id);
    if (i === undefined) {
      i = rules.length;
      indexOf.set(id, i);
      const summary = RULES.find((r) => r.id === id)?.summary;
      rules.push({ id, shortDescription: { text: summary ?? id } });
    }
    return i;
  };
  const annotations = annotate(report);
  const results = annotations
    .filter((a): a is FindingAnnotation => a.kind === 'finding')
    .map((a) => resultFor(report, a, ruleIndex));
  const notifications = [
    ...annotations
      .filter((a): a is ProblemAnnotation => a.kind === 'problem')
      .map((a) => problemNotification(report, a)),
    ...annotations.filter((a): a is NoteAnnotation => a.kind === 'note').map((a) => noteNotification(report, a)),
  ];
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'hookkeeper', version: readVersion(), informationUri: HOMEPAGE, rules } },
        ...(report.oldRef === undefined
          ? {}
          : {
              originalUriBaseIds: {
                [OLD_REF_BASE]: {
                  // No URI: the revision is not a place on disk; the description says which one it is.
                  description: { text: `the files at git revision ${report.oldRef} (validate --old-ref)` },
                },
              },
            }),
        invocations: [
          {
            executionSuccessful: report.problems.length === 0,
            toolExecutionNotifications: notifications,
          },
        ],
        results,
      },
    ],
  };
}

export function renderSarif(report: ValidateReport): string {
  return JSON.stringify(toSarif(report), null, 2);
}
