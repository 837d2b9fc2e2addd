// The CEL environment of a Kubernetes admission policy, for tests: @marcbachmann/cel-js, chosen over @bufbuild/cel
// because it parses, type-checks and (through custom macros) evaluates every rendered expression (BENCHMARKS.md).
// Kubernetes' libraries the render uses are small shims here: two-variable comprehensions, strings.quote, replace,
// lists' slice, RE2 matches (re2js), ASCII-only lowerAscii, code-point substring, and an authorizer whose answer
// the test injects.
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** What the injected authorizer is asked: one resource check (authorizer.group(..).resource(..)...check(verb)). */
export interface AuthzQuestion {
  group: string;
  resource: string;
  namespace: string;
  name: string;
  verb: string;
}

export type Authorize = (q: AuthzQuestion) => boolean;

/** A resource check being built; every step returns a new one, as the Kubernetes library's are values. */
class ResourceCheck {
  constructor(
    readonly authorize: Authorize,
    readonly q: Omit<AuthzQuestion, 'verb'>,
  ) {}
  with(part: Partial<AuthzQuestion>): ResourceCheck {
    return new ResourceCheck(this.authorize, { ...this.q, ...part });
  }
}
class Authorizer {
  constructor(readonly authorize: Authorize) {}
}
class AuthzDecision {
  constructor(readonly allowed: boolean) {}
}
class StringsLibrary {}

/** Computes a policy's variable by name (the activation holding the other variables is bound in). */
export type VariableThunks = ReadonlyMap<string, () => unknown>;
export type VariablesClass = new (compute: VariableThunks) => Variables;

/**
 * A policy's `variables`: each computed on first read and kept, its error too, as the API server evaluates them
 * (a variable no expression reads is never evaluated, and cannot fail the request). Its fields are getters on the
 * prototype (`defineVariables`): cel-js reads a message's fields as properties.
 */
export class Variables {
  readonly #done = new Map<string, { value: unknown } | { error: unknown }>();
  constructor(readonly compute: VariableThunks) {}
  read(name: string): unknown {
    let d = this.#done.get(name);
    if (d === undefined) {
      const thunk = this.compute.get(name);
      if (thunk === undefined) throw new Error(`no variable ${name} in this policy`);
      try {
        d = { value: thunk() };
      } catch (error) {
        d = { error };
      }
      this.#done.set(name, d);
    }
    if ('error' in d) throw d.error;
    return d.value;
  }
}

/** Adds a getter for each name to a Variables class (once). */
export function defineVariables(cls: VariablesClass, names: Iterable<string>): void {
  for (const name of names) {
    if (Object.hasOwn(cls.prototype, name)) continue;
    Object.defineProperty(cls.prototype, name, {
      get(this: Variables): unknown {
        return this.read(name);
      },
    });
  }
}

/**
 * Kubernetes' overloads whose semantics cel-js gives otherwise (JS RegExp, Unicode lowercasing, UTF-16 indices),
 * renamed in the text before parsing: cel-js refuses a second overload of a built-in signature.
 */
const RENAMED: Readonly<Record<string, string>> = {
  matches: 'k8sMatches',
  lowerAscii: 'k8sLowerAscii',
  substring: 'k8sSubstring',
};

/**
 * The expression as cel-js reads it: `.matches(` and the others renamed (outside string literals), and a JSONPatch
 * message literal `JSONPatch{op: ...}` written as a map (cel-js has no message literals).
 */
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

/** `('<pattern>')`: a matches() argument that is one string literal (no escaped quote in it). */
const LITERAL_ARGUMENT = /^\(\s*('[^'\\]*(?:\\.[^'\\]*)*'|"[^"\\]*(?:\\.[^"\\]*)*")\s*\)/;

/**
 * cel-go compiles a constant pattern with the expression and refuses the expression when RE2 refuses the pattern
 * ("invalid matches argument"); a pattern computed at evaluation fails only then.
 */
function checkLiteralPattern(rest: string): void {
  const m = LITERAL_ARGUMENT.exec(rest);
  if (!m) return;
  const pattern = new Environment().evaluate(m[1] as string);
  if (typeof pattern !== 'string') return;
  try {
    RE2JS.compile(pattern);
  } catch (e) {
    throw new Error(`invalid matches argument ${m[1] as string}: ${(e as Error).message}`);
  }
}

export function prepare(expression: string): string {
  let out = '';
  const messageDepths: number[] = [];
  let depth = 0;
  let i = 0;
  const n = expression.length;
  while (i < n) {
    const c = expression[i] as string;
    if (c === '"' || c === "'") {
      if (expression.startsWith(c.repeat(3), i)) throw new Error('triple-quoted CEL strings are not supported here');
      let j = i + 1;
      while (j < n && expression[j] !== c) j += expression[j] === '\\' ? 2 : 1;
      out += expression.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    IDENT.lastIndex = i;
    const ident = IDENT.exec(expression);
    if (ident) {
      const word = ident[0];
      const before = out.trimEnd();
      if (word === 'JSONPatch' && expression[i + word.length] === '{') {
        out += '{';
        depth++;
        messageDepths.push(depth);
        i += word.length + 1;
        continue;
      }
      if (messageDepths.at(-1) === depth && /^\s*:/.test(expression.slice(i + word.length)) && /[{,]$/.test(before)) {
        out += `'${word}'`;
      } else if (before.endsWith('.') && RENAMED[word] !== undefined && expression[i + word.length] === '(') {
        out += RENAMED[word];
        if (word === 'matches') checkLiteralPattern(expression.slice(i + word.length));
      } else {
        out += word;
      }
      i += word.length;
      continue;
    }
    if (c === '{' || c === '(' || c === '[') depth++;
    if (c === '}' || c === ')' || c === ']') {
      if (c === '}' && messageDepths.at(-1) === depth) messageDepths.pop();
      depth--;
    }
    out += c;
    i++;
  }
  return out;
}

/** cel-go's strings.quote: Go escapes for the control characters it names, `\\` and `"`; the rest as is. */
export function celQuote(s: string): string {
  const escapes: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
    '\\': '\\\\',
    '"': '\\"',
  };
  let out = '"';
  for (const ch of s) out += escapes[ch] ?? ch;
  return `${out}"`;
}

const re2Cache = new Map<string, RE2JS>();
function re2(pattern: string): RE2JS {
  let re = re2Cache.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    re2Cache.set(pattern, re);
  }
  return re;
}

interface MacroArgs {
  args: ASTNode[];
  receiver: ASTNode;
  ast: ASTNode;
}

// cel-js's macro interface is not in its type declarations: the checker and evaluator are used as its own macros
// use them (lib/macros.js).
/* eslint-disable @typescript-eslint/no-explicit-any */
function identifier(node: ASTNode): string {
  if (node.op !== 'id') throw new Error('a comprehension variable must be an identifier');
  return node.args;
}

/** Entries of a list (index, element) or a map (key, value), as Kubernetes' two-variable comprehensions range. */
function entries(value: unknown): Array<[unknown, unknown]> {
  if (Array.isArray(value)) return value.map((v, i) => [BigInt(i), v]);
  if (value instanceof Map) return [...value.entries()];
  if (value !== null && typeof value === 'object') return Object.entries(value);
  throw new Error(`cannot range over ${typeof value}`);
}

type Kind = 'transformList' | 'transformMapEntry' | 'all' | 'exists';

/** A two-variable comprehension (cel-go ext TwoVarComprehensions), with or without a filter. */
function twoVarMacro(kind: Kind, withFilter: boolean) {
  return ({ args, receiver }: MacroArgs) => {
    const [a, b] = [identifier(args[0] as ASTNode), identifier(args[1] as ASTNode)];
    const filter = withFilter ? args[2] : undefined;
    const body = args[withFilter ? 3 : 2] as ASTNode;
    return {
      receiver,
      filter,
      body,
      typeCheck(checker: any, m: any, ctx: any) {
        const range = checker.check(m.receiver, ctx);
        const [ta, tb] =
          range.kind === 'list'
            ? [checker.getType('int'), range.valueType]
            : range.kind === 'map'
              ? [range.keyType, range.valueType]
              : [checker.getType('dyn'), checker.getType('dyn')];
        m.outer = ctx.forkWithVariable(a, ta);
        m.inner = m.outer.forkWithVariable(b, tb);
        if (m.filter) checker.check(m.filter, m.inner);
        const t = checker.check(m.body, m.inner);
        if (kind === 'transformList') return checker.registry.getListType(t);
        if (kind === 'transformMapEntry') return t;
        return checker.getType('bool');
      },
      evaluate(ev: any, m: any, ctx: any) {
        const outer = m.outer.reuse(ctx);
        const inner = m.inner.reuse(outer);
        const at = (k: unknown, v: unknown): any => {
          outer.iterValue = k;
          inner.iterValue = v;
          return inner;
        };
        const list: unknown[] = [];
        const map: Record<string, unknown> = {};
        for (const [k, v] of entries(ev.run(m.receiver, ctx))) {
          if (m.filter) {
            const keep = ev.run(m.filter, at(k, v));
            if (keep !== true) {
              if (keep === false) continue;
              throw new Error('a comprehension filter must be a bool');
            }
          }
          const r = ev.run(m.body, at(k, v));
          if (kind === 'all' && r === false) return false;
          if (kind === 'exists' && r === true) return true;
          if (kind === 'transformList') list.push(r);
          if (kind === 'transformMapEntry') {
            for (const [key, value] of entries(r)) {
              const name = String(key);
              if (Object.hasOwn(map, name)) throw new Error(`insert failed: key ${name} already exists`);
              map[name] = value;
            }
          }
        }
        if (kind === 'all') return true;
        if (kind === 'exists') return false;
        return kind === 'transformList' ? list : map;
      },
    };
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Code points, as cel-go indexes strings. */
function substring(s: string, start: bigint, end?: bigint): string {
  const points = [...s];
  const [lo, hi] = [Number(start), end === undefined ? points.length : Number(end)];
  if (lo < 0 || lo > points.length || hi < lo || hi > points.length)
    throw new Error(`substring(${lo}, ${hi}) out of range of a string of ${points.length}`);
  return points.slice(lo, hi).join('');
}

/**
 * An environment for one policy's expressions: the admission variables as Kubernetes declares them, and
 * `variables` typed per name from the expressions declared before (a policy's variables may read earlier ones).
 */
export function admissionEnvironment(
  variableTypes: ReadonlyMap<string, string>,
  variables: VariablesClass = Variables,
): Environment {
  const env = new Environment({ homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: false });
  env
    .registerType('Authorizer', Authorizer)
    .registerType('ResourceCheck', ResourceCheck)
    .registerType('AuthzDecision', AuthzDecision)
    .registerType('StringsLibrary', StringsLibrary)
    .registerType('Variables', { ctor: variables, fields: Object.fromEntries(variableTypes) })
    .registerVariable('object', 'dyn')
    .registerVariable('oldObject', 'dyn')
    .registerVariable('request', 'map<string, dyn>')
    .registerVariable('namespaceObject', 'dyn')
    .registerVariable('params', 'dyn')
    .registerVariable('variables', 'Variables')
    .registerVariable('authorizer', 'Authorizer')
    .registerConstant('strings', 'StringsLibrary', new StringsLibrary())
    .registerFunction(
      'Authorizer.group(string): ResourceCheck',
      (a: Authorizer, group: string) =>
        new ResourceCheck(a.authorize, { group, resource: '', namespace: '', name: '' }),
    )
    .registerFunction('ResourceCheck.resource(string): ResourceCheck', (c: ResourceCheck, resource: string) =>
      c.with({ resource }),
    )
    .registerFunction('ResourceCheck.namespace(string): ResourceCheck', (c: ResourceCheck, namespace: string) =>
      c.with({ namespace }),
    )
    .registerFunction('ResourceCheck.name(string): ResourceCheck', (c: ResourceCheck, name: string) => c.with({ name }))
    .registerFunction(
      'ResourceCheck.check(string): AuthzDecision',
      (c: ResourceCheck, verb: string) => new AuthzDecision(c.authorize({ ...c.q, verb })),
    )
    .registerFunction('AuthzDecision.allowed(): bool', (d: AuthzDecision) => d.allowed)
    .registerFunction('StringsLibrary.quote(string): string', (_: StringsLibrary, s: string) => celQuote(s))
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
    .registerFunction('list.slice(int, int): list', (l: unknown[], lo: bigint, hi: bigint) => {
      if (lo < 0n || hi < lo || hi > BigInt(l.length)) throw new Error(`slice(${lo}, ${hi}) out of range`);
      return l.slice(Number(lo), Number(hi));
    })
    .registerFunction('string.k8sMatches(string): bool', (s: string, p: string) => re2(p).matcher(s).find())
    .registerFunction('string.k8sLowerAscii(): string', (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase()))
    .registerFunction('string.k8sSubstring(int): string', (s: string, lo: bigint) => substring(s, lo))
    .registerFunction('string.k8sSubstring(int, int): string', (s: string, lo: bigint, hi: bigint) =>
      substring(s, lo, hi),
    );
  for (const receiver of ['list', 'map']) {
    for (const kind of ['transformList', 'transformMapEntry'] as const) {
      env.registerFunction(`${receiver}.${kind}(ast, ast, ast): dyn`, twoVarMacro(kind, false));
      env.registerFunction(`${receiver}.${kind}(ast, ast, ast, ast): dyn`, twoVarMacro(kind, true));
    }
    for (const kind of ['all', 'exists'] as const)
      env.registerFunction(`${receiver}.${kind}(ast, ast, ast): bool`, twoVarMacro(kind, false));
  }
  return env;
}

export { Authorizer };
