// What the documentation says a rule does by default is what the policy does: every parenthetical that names rules
// and an enforcement, "(`stuck-deletion`, `orphaned-owner`: `deny` by default, ...)" or "(`unprotected-owner`, warn)",
// names a value the policy schema accepts and each named rule's default in the registry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POLICY_SCHEMA } from '../../src/infrastructure/config/schema.js';
import { RULE_IDS, type RuleId } from '../../src/rules/rule-ids.js';
import { defaultEnforcement } from '../../src/core/registry.js';
import { markdownPages, prose, readDoc } from '../helpers/docs.js';

interface Claim {
  page: string;
  text: string;
  rules: RuleId[];
  value: string;
}

const isRule = (s: string): s is RuleId => (RULE_IDS as readonly string[]).includes(s);

const ENFORCEMENTS: readonly string[] = POLICY_SCHEMA.properties.enforcement.properties['hook-naming']?.enum ?? [];

/** "(rule `a`, `b`: `deny` by default ...)", "(`a`, warn)": the rules a parenthetical opens with and the value after. */
export function ruleDefaultClaims(page: string, text: string): Claim[] {
  const claims: Claim[] = [];
  const flat = prose(text).replace(/\s*\n\s*/g, ' ');
  for (const m of flat.matchAll(/\((?:rules? )?((?:`[a-z-]+`(?:, | and )?)+)[:,] `?([a-z]+)`?( by default|\))/g)) {
    // "by default" makes any word a claim; a bare closing parenthesis only an enforcement ("mutating)" is not one).
    if (m[3] === ')' && !ENFORCEMENTS.includes(m[2] ?? '')) continue;
    const names = [...(m[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((n) => n[1] ?? '');
    if (names.length === 0 || !names.every(isRule)) continue;
    claims.push({ page, text: m[0].replace(/\)$/, ''), rules: names, value: m[2] ?? '' });
  }
  return claims;
}

test('the claim finder reads the forms the pages use', () => {
  assert.deepEqual(
    ruleDefaultClaims('x.md', 'Both (`stuck-deletion`, `orphaned-owner`: `fail` by default, `warn` or\n`off`).').map(
      (c) => [c.rules, c.value],
    ),
    [[['stuck-deletion', 'orphaned-owner'], 'fail']],
  );
  assert.deepEqual(
    ruleDefaultClaims('x.md', '(rule `capi-migration`, `warn` by default) and (`unprotected-owner`, warn)').map((c) => [
      c.rules,
      c.value,
    ]),
    [
      [['capi-migration'], 'warn'],
      [['unprotected-owner'], 'warn'],
    ],
  );
  assert.deepEqual(
    ruleDefaultClaims('x.md', '(`child-parent`, on UPDATE) (`--output`, json)\n```\n(`hook-count`, fail)\n```'),
    [],
  );
});

test("every rule default the documentation states is the policy's", () => {
  const defaults = defaultEnforcement();
  const claims = ['README.md', ...markdownPages().filter((p) => p.startsWith('docs/'))].flatMap((page) =>
    ruleDefaultClaims(page, readDoc(page)),
  );
  // The pages state several defaults; finding none would mean the finder no longer reads them.
  assert.ok(claims.length >= 3, `found only ${claims.length} stated rule defaults`);
  const wrong = claims.flatMap((c) => {
    if (!ENFORCEMENTS.includes(c.value))
      return [`${c.page}: "${c.text}": ${c.value} is not an enforcement (the policy takes ${ENFORCEMENTS.join(', ')})`];
    return c.rules
      .filter((r) => defaults[r] !== c.value)
      .map((r) => `${c.page}: "${c.text}": ${r} is ${defaults[r]} by default, not ${c.value}`);
  });
  assert.deepEqual(wrong, []);
});
