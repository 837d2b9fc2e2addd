// Under `set -o pipefail`, `cmd | grep -q x` fails at random: grep exits at its first match, and cmd, still writing,
// dies of SIGPIPE (exit 141), which pipefail makes the pipeline's status. `kubectl version --client | grep -qx ...`
// failed 22 times in 200 that way and rebuilt kubectl in CI. The scripts capture the output, then grep it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scripts = [
  ...readdirSync(join(root, 'scripts'))
    .filter((f) => f.endsWith('.sh'))
    .map((f) => join('scripts', f)),
  join('.ci', 'run'),
];

/** Lines that pipe into a grep that stops reading early (-q, -m), in a script that sets pipefail. */
export function earlyExitGreps(text: string): string[] {
  if (!/^\s*set\s+-[a-z]*o\s+pipefail|^\s*set\s+-o\s+pipefail/m.test(text)) return [];
  return text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .filter((line) => /\|\s*grep\s+(-[A-Za-z]*[qm]|--quiet|--max-count)/.test(line));
}

test('the check finds a pipe into grep -q under pipefail, and not a captured output', () => {
  assert.equal(earlyExitGreps('set -euo pipefail\nkubectl version | grep -qx "v1"\n').length, 1);
  assert.equal(earlyExitGreps('set -euo pipefail\nout="$(kubectl version)"\ngrep -qx "v1" <<<"$out"\n').length, 0);
  assert.equal(earlyExitGreps('set -eu\nkubectl version | grep -qx "v1"\n').length, 0);
});

test('no script run with pipefail pipes into a grep that exits early', () => {
  for (const file of scripts) {
    assert.deepEqual(earlyExitGreps(readFileSync(join(root, file), 'utf8')), [], file);
  }
});
