// Messages both engines say: the TypeScript text, the CEL built from the same parts, and the field-error shape they
// share with src/core/field-errors.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cel, celString } from '../../src/core/cel/text.js';
import { forbidden, invalid, OMIT_VALUE, tooLong, tooMany } from '../../src/core/field-errors.js';
import {
  forbiddenField,
  invalidField,
  invalidFieldOmitValue,
  tooLongField,
  tooManyField,
} from '../../src/core/messages/field.js';
import { message, words } from '../../src/core/messages/message.js';

describe('messages', () => {
  test('the field-error shapes are field-errors.ts', () => {
    const path = 'spec.x';
    assert.equal(invalidField(path, '"v"', 'bad').toJs({}), invalid(path, 'v', 'bad').message);
    assert.equal(invalidFieldOmitValue(path, 'bad').toJs({}), invalid(path, OMIT_VALUE, 'bad').message);
    assert.equal(forbiddenField(path, 'no').toJs({}), forbidden(path, 'no').message);
    assert.equal(tooLongField(path, 7).toJs({}), tooLong(path, 'x', 7).message);
    assert.equal(tooManyField(path, '9', 3).toJs({}), tooMany(path, 9, 3).message);
  });

  test('one definition, two renderings: literals merged, slots quoted, counted and chosen alike', () => {
    const m = message<{ path: string; name: string; n: number; re: boolean }>((w) => [
      w.text('path'),
      ': ',
      w.when('re', 'change ', 'remove '),
      'hook ',
      w.quoted('name'),
      ' (',
      w.int('n'),
      ')',
    ]);
    assert.equal(m.toJs({ path: 'p[0]', name: 'a"b', n: 2, re: false }), 'p[0]: remove hook "a\\"b" (2)');
    assert.equal(
      m.toCel({ path: cel`x.path`, name: cel`h.name`, n: cel`size(l)`, re: cel`r` }),
      `(x.path + ": " + (r ? "change " : "remove ") + "hook " + strings.quote(h.name) + " (" + string(size(l)) + ")")`,
    );
    // A slot given as a literal joins the literals around it; a message of literals only is one literal.
    assert.equal(
      words<{ a: string }>(
        'x',
        message<{ a: string }>((w) => w.text('a')),
        'z',
      ).toCel({ a: celString('y') }),
      '"xyz"',
    );
  });

  test('a slot whose expression binds looser than + is parenthesized in the concatenation', () => {
    const m = message<{ a: string }>((w) => ['<', w.text('a'), '>']);
    assert.equal(m.toCel({ a: cel`c ? 'x' : 'y'` }), `("<" + (c ? 'x' : 'y') + ">")`);
    assert.equal(m.toCel({ a: cel`l[0] + "?"` }), `("<" + l[0] + "?" + ">")`);
  });
});
