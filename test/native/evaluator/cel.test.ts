// The admission CEL environment's shims: each Kubernetes library function the render uses, with the semantics
// Kubernetes gives it (test/e2e/scenarios/cel-shims.ts checks the same expressions against a real API server).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionEnvironment, Authorizer, celQuote, prepare, type AuthzQuestion } from './cel.js';

const env = admissionEnvironment(new Map());
const run = (expression: string, ctx: Record<string, unknown> = {}): unknown =>
  env.evaluate(prepare(expression), { object: null, oldObject: null, request: {}, ...ctx });

describe('admission CEL shims', () => {
  test('prepare: message literals become maps and Kubernetes overloads are renamed, never inside strings', () => {
    assert.equal(
      prepare(`[JSONPatch{op: "add", path: 'a.matches(', value: {'op': 1}}]`),
      `[{'op': "add", 'path': 'a.matches(', 'value': {'op': 1}}]`,
    );
    assert.equal(
      prepare(`x.matches('y') && "z.lowerAscii()" == x.lowerAscii()`),
      `x.k8sMatches('y') && "z.lowerAscii()" == x.k8sLowerAscii()`,
    );
    assert.throws(() => prepare(`'''a'''`), /triple-quoted/);
  });

  test('strings.quote escapes as cel-go does', () => {
    assert.equal(celQuote('a"b\\c\n\t\x07\v'), '"a\\"b\\\\c\\n\\t\\a\\v"');
    assert.equal(run(`strings.quote('ünï')`), '"ünï"');
  });

  test('lowerAscii lowers ASCII only; substring counts code points; replace replaces every match', () => {
    assert.equal(run(`'ÄBc'.lowerAscii()`), 'Äbc');
    assert.equal(run(`'😀ab'.substring(1)`), 'ab');
    assert.equal(run(`'😀ab'.substring(0, 1)`), '😀');
    assert.throws(() => run(`'ab'.substring(3)`));
    assert.equal(run(`'a:b:c'.replace(':', '-')`), 'a-b-c');
  });

  test('matches is RE2: unanchored, inline flags, no backtracking constructs', () => {
    assert.equal(run(`'xaby'.matches('ab')`), true);
    assert.equal(run(`'AB'.matches('(?i)^ab$')`), true);
    // A constant pattern is compiled with the expression, as cel-go does; a computed one when evaluated.
    assert.throws(() => prepare(`'ab'.matches('a(?=b)')`), /invalid matches argument/);
    assert.throws(() => run(`'ab'.matches('a(?' + '=b)')`));
  });

  test('lists: slice, and two-variable comprehensions with and without a filter', () => {
    assert.deepEqual(run('[1, 2, 3].slice(1, 3)'), [2n, 3n]);
    assert.throws(() => run('[1, 2, 3].slice(2, 4)'));
    assert.deepEqual(run(`['a', 'b', 'c'].transformList(i, v, i > 0, v + string(i))`), ['b1', 'c2']);
    assert.deepEqual(run(`{'k': 'v'}.transformList(k, v, k + v)`), ['kv']);
    assert.deepEqual(run(`[{'n': 'a', 'o': 'x'}].transformMapEntry(i, h, {h.n: h.o})`), { a: 'x' });
    assert.deepEqual(run(`{'a': 1, 'b': 2}.transformMapEntry(k, v, v > 1, {k: v})`), { b: 2n });
    assert.throws(() => run(`['a', 'a'].transformMapEntry(i, v, {v: i})`), /already exists/);
    assert.equal(run(`['a', 'b'].all(i, v, i < 2)`), true);
    assert.equal(run(`['a', 'b'].exists(i, v, v == 'b' && i == 1)`), true);
  });

  test('the authorizer answers what the test injects, asked with every part of the check', () => {
    const asked: AuthzQuestion[] = [];
    const authorizer = new Authorizer((q) => (asked.push(q), q.name === 'yes'));
    const check = (name: string): unknown =>
      run(
        `authorizer.group('hookkeeper.io').resource('hookowners').namespace('ns').name('${name}').check('remove').allowed()`,
        { authorizer },
      );
    assert.equal(check('yes'), true);
    assert.equal(check('no'), false);
    assert.deepEqual(asked[0], {
      group: 'hookkeeper.io',
      resource: 'hookowners',
      namespace: 'ns',
      name: 'yes',
      verb: 'remove',
    });
  });
});
