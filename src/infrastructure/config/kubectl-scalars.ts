// A plain scalar (unquoted, untagged) as kubectl reads it. kubectl reads manifests with go-yaml v2
// (go.yaml.in/yaml/v2 resolve.go `resolve`, through sigs.k8s.io/yaml), whose rules are YAML 1.1's with Go's number
// syntax: yes/no/on/off/y/n are booleans, 0777 is octal, 0o17, 0x1F, 0b101 and 1_000 are integers, 08 and 1e3 are
// numbers, timestamps stay text. The YAML 1.2 core schema reads several of them as other values or as text, and the
// `yaml` package's own YAML 1.1 schema is not go-yaml's either (it reads 0o17 as text), so a
// gate judging manifests with it would judge what the cluster never receives. Values kubectl sends that a
// JavaScript number cannot hold (an integer past 2^53) and values kubectl refuses (.inf, .nan) are refused here.
import type { ScalarTag, Tags } from 'yaml';

/** The first character's class, as go-yaml's resolveTable has it: only these can start a non-string. */
function hint(c: string | undefined): 'sign' | 'digit' | 'map' | 'dot' | undefined {
  if (c === undefined) return 'map';
  if (c === '+' || c === '-') return 'sign';
  if (c >= '0' && c <= '9') return 'digit';
  if ('yYnNtTfFoO~'.includes(c)) return 'map';
  return c === '.' ? 'dot' : undefined;
}

const WORDS = new Map<string, boolean | null>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((w) => [w, true] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((w) => [w, false] as const),
  ...['', '~', 'null', 'Null', 'NULL'].map((w) => [w, null] as const),
]);

/** Infinities and NaN: go-yaml reads them as floats, which JSON has no text for, so kubectl refuses the file. */
const NOT_JSON = /^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** Go's strconv.ParseInt(s, 0, 64) syntax, on the text without its underscores. */
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]*)|([1-9][0-9]*))$/;
/** go-yaml's yamlStyleFloat. */
const GO_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INT64 = 2n ** 63n;

export class ScalarRefusal extends Error {}

function integer(sign: string, digits: bigint, text: string): number | undefined {
  const value = sign === '-' ? -digits : digits;
  // Past int64, ParseInt fails; an unsigned value up to 2^64 is ParseUint's, and beyond it go-yaml tries a float.
  if (value >= INT64 || value < -INT64) {
    if (sign !== '' || value >= 2n ** 64n) return undefined;
  }
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
    throw new ScalarRefusal(
      `${text} is an integer kubectl sends exactly, past what hookkeeper can hold exactly (2^53): quote it if it is meant as text`,
    );
  return Number(value);
}

/** The value kubectl reads from a plain scalar's text. Throws ScalarRefusal where hookkeeper cannot follow it. */
export function kubectlScalar(text: string): unknown {
  const kind = hint(text[0]);
  if (kind === undefined) return text;
  const word = WORDS.get(text);
  if (word !== undefined) return word;
  if (NOT_JSON.test(text))
    throw new ScalarRefusal(
      `${text} is a float JSON cannot hold, which kubectl refuses: quote it if it is meant as text`,
    );
  if (kind === 'map') return text;
  if (kind === 'dot') {
    // strconv.ParseFloat: out of range is an error, and the text stays a string.
    const n = GO_FLOAT.test(text) ? Number(text) : NaN;
    return Number.isFinite(n) ? n : text;
  }
  const plain = text.replaceAll('_', '');
  const m = GO_INT.exec(plain);
  if (m) {
    const [, sign = '', hex, oct, bin, oldOct, dec] = m;
    const digits =
      hex !== undefined
        ? BigInt(`0x${hex}`)
        : oct !== undefined
          ? BigInt(`0o${oct}`)
          : bin !== undefined
            ? BigInt(`0b${bin}`)
            : oldOct !== undefined
              ? oldOct === ''
                ? 0n
                : BigInt(`0o${oldOct}`)
              : BigInt(dec ?? '0');
    const n = integer(sign, digits, text);
    if (n !== undefined) return n;
  }
  if (GO_FLOAT.test(plain)) {
    const n = Number(plain);
    if (Number.isFinite(n)) return n;
  }
  return text;
}

/**
 * The tag that reads every plain scalar but the merge key `<<` (left to the `yaml` package's merge tag) with
 * kubectlScalar; a refusal becomes the document's parse error, at the scalar.
 */
export const kubectlPlain: ScalarTag = {
  tag: 'tag:hookkeeper,2026:kubectl-plain',
  default: true,
  test: /^(?!<<$)/,
  identify: () => false,
  resolve(text, onError) {
    try {
      return kubectlScalar(text);
    } catch (err) {
      if (!(err instanceof ScalarRefusal)) throw err;
      onError(err.message);
      return text;
    }
  },
};

/** The `yaml` package's `customTags` for kubectl's reading: collections and strings as YAML has them, plain scalars as above. */
export function kubectlTags(tags: Tags): Tags {
  const kept = new Set(['tag:yaml.org,2002:map', 'tag:yaml.org,2002:seq', 'tag:yaml.org,2002:str']);
  return [...tags.filter((t) => typeof t !== 'string' && kept.has(t.tag)), kubectlPlain];
}
