// validate words a denial as the webhook does for the identity it judges as (--as); only as its own offline identity
// (no --as), which no grant would help, does it suggest --as and the owner's grant instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import type { ReviewInput, UserInfo } from '../../src/core/types.js';
import { DEFAULT_USER } from '../../src/transports/validate/report.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine } from '../fixtures/openshift.js';

function removal(user: UserInfo, source: ReviewInput['source']): string[] {
  const input = reviewInput({
    operation: 'UPDATE',
    object: machine({ preDrain: [], resourceVersion: '2' }),
    oldObject: machine({ preDrain: [ETCD] }),
    user,
  });
  return evaluate(DEFAULT_POLICY, { ...input, source }).denials.map((d) => d.message);
}

test('with --as, a denial in the webhook’s words for that user; as the offline identity, --as suggested', () => {
  const alice = { username: 'alice', groups: ['system:authenticated'] };
  assert.deepEqual(removal(alice, 'validate'), removal(alice, 'admission'));
  const [offline] = removal(DEFAULT_USER, 'validate');
  assert.match(offline ?? '', /validate judged this as "hookkeeper-validate": give --as/);
  assert.doesNotMatch(offline ?? '', /--user=hookkeeper-validate/);
});
