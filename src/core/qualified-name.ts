// Kubernetes "qualified name" validation (annotation and label keys), with apimachinery's rules and wording
// (k8s.io/apimachinery/pkg/util/validation IsQualifiedName), so a hook annotation hookkeeper rejects reads
// exactly as the API server would reject it.

export const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const UTF8 = new TextEncoder();

/**
 * Whether `value` is longer than `max` bytes in UTF-8, as Go's len() counts what the API server limits. A UTF-16
 * code unit is one to three UTF-8 bytes (a surrogate pair, two units, is four), so the string's length settles
 * most cases without encoding it.
 */
function longerThanBytes(value: string, max: number): boolean {
  if (value.length > max) return true;
  if (value.length * 3 <= max) return false;
  return UTF8.encode(value).length > max;
}

/** apimachinery's RegexError, including its "'x',  or 'y', " spacing. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} bytes`;

/** The problems of a qualified name's name part, in apimachinery's words (both engines print them). */
export const QUALIFIED_NAME_DETAILS = Object.freeze({
  /** More than one '/'. */
  shape:
    `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
    " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  empty: 'name part must be non-empty',
  tooLong: `name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`,
  pattern: `name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
});

/** The problems of a DNS subdomain, in apimachinery's words. */
const DNS1123_SUBDOMAIN_DETAILS = Object.freeze({
  tooLong: maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH),
  pattern: regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'),
});

/** The problems of a qualified name's prefix part, in apimachinery's words (both engines print them). */
export const PREFIX_PART_DETAILS = Object.freeze({
  empty: 'prefix part must be non-empty',
  tooLong: `prefix part ${DNS1123_SUBDOMAIN_DETAILS.tooLong}`,
  pattern: `prefix part ${DNS1123_SUBDOMAIN_DETAILS.pattern}`,
});

export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (longerThanBytes(value, DNS1123_SUBDOMAIN_MAX_LENGTH)) errs.push(DNS1123_SUBDOMAIN_DETAILS.tooLong);
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(DNS1123_SUBDOMAIN_DETAILS.pattern);
  return errs;
}

/** IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name part of at most 63 bytes. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push(PREFIX_PART_DETAILS.empty);
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [QUALIFIED_NAME_DETAILS.shape];
  }
  if (name.length === 0) errs.push(QUALIFIED_NAME_DETAILS.empty);
  else if (longerThanBytes(name, QUALIFIED_NAME_MAX_LENGTH)) errs.push(QUALIFIED_NAME_DETAILS.tooLong);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(QUALIFIED_NAME_DETAILS.pattern);
  return errs;
}

/**
 * ValidateAnnotations checks each key as a qualified name after lowercasing it ("case doesn't matter"), so
 * an uppercase prefix is accepted in an annotation key although it is not in a label key.
 */
export function annotationKeyErrors(key: string): string[] {
  return qualifiedNameErrors(key.toLowerCase());
}
