// `validate --output sarif`: a SARIF 2.1.0 log (OASIS), the format code-scanning services (GitHub code scanning,
// GitLab, Azure DevOps) import. One result per finding; input problems and notes are tool notifications.
import { RULES } from '../core/registry.js';
import type { Problem } from '../errors.js';
import { HOMEPAGE, readVersion } from '../version.js';
import {
  describeObject,
  describeProblem,
  inWorkingTree,
  type DeletionResult,
  type Finding,
  type ObjectResult,
  type ValidateReport,
} from './report.js';

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

function objectLocation(report: ValidateReport, r: ObjectResult | DeletionResult, line: number | undefined): Location {
  return {
    ...checkedOut(report, r.file, line ?? r.line),
    logicalLocations: [{ fullyQualifiedName: describeObject(r.object), kind: 'object' }],
  };
}

function resultFor(
  report: ValidateReport,
  r: ObjectResult | DeletionResult,
  operation: string,
  f: Finding,
  ruleIndex: (id: string) => number,
): SarifResult {
  const oldPlace = f.old && `${f.old.file}${f.old.line === undefined ? '' : `:${f.old.line}`}`;
  const text = [
    `${describeObject(r.object)} [${operation}]: ${f.message}${oldPlace ? ` (old: ${oldPlace})` : ''}`,
    ...(f.fix ? [`fix: ${f.fix}`] : []),
  ].join('\n');
  return {
    ruleId: f.rule,
    ruleIndex: ruleIndex(f.rule),
    level: f.severity === 'deny' ? 'error' : 'warning',
    message: { text },
    // Something only the old version has (a removed hook) is reported at the object that lost it, with the old
    // version's place beside it.
    locations: [objectLocation(report, r, f.old ? r.line : f.line)],
    ...(f.old
      ? {
          relatedLocations: [
            {
              id: 1,
              ...physical(report, f.old.file, f.old.line),
              message: { text: `the old version: ${oldPlace ?? f.old.file}` },
            },
          ],
        }
      : {}),
  };
}

function problemNotification(report: ValidateReport, p: Problem): Notification {
  return {
    level: 'error',
    message: { text: describeProblem(p) },
    ...(p.file === undefined || !inWorkingTree(report, p.file)
      ? {}
      : { locations: [checkedOut(report, p.file, p.line)] }),
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
  const results: SarifResult[] = [];
  for (const r of report.results)
    for (const f of r.findings) results.push(resultFor(report, r, r.operation, f, ruleIndex));
  for (const d of report.deletions)
    for (const f of d.findings) results.push(resultFor(report, d, 'DELETE', f, ruleIndex));
  const notes: Notification[] = [
    ...report.results.flatMap((r) =>
      [...r.notices, ...r.notes].map((text): Notification => ({
        level: 'note',
        message: { text: `${describeObject(r.object)} [${r.operation}]: ${text}` },
        locations: [objectLocation(report, r, r.line)],
      })),
    ),
    ...report.notes.map((text): Notification => ({ level: 'note', message: { text } })),
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
            toolExecutionNotifications: [...report.problems.map((p) => problemNotification(report, p)), ...notes],
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
