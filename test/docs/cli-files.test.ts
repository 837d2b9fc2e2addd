// docs/cli.md's sentence on how commands take the files they read, held to the command tree: which commands take
// files by position and with -f (as kubectl does), which with -f only, and which by position only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandTree } from '../helpers/cli.js';
import { prose, readDoc } from '../helpers/docs.js';

/** The commands in each way of taking files, from their options and the names of their positional arguments. */
function derived(): { both: string[]; flagOnly: string[]; positionOnly: string[] } {
  const out = { both: [] as string[], flagOnly: [] as string[], positionOnly: [] as string[] };
  for (const { name, cmd } of commandTree()) {
    const flag = cmd.options.some((o) => o.short === '-f' && o.long === '--filename');
    const positional = cmd.registeredArguments.some((a) => /^(file|path)s?$/.test(a.name()));
    if (flag && positional) out.both.push(name);
    else if (flag) out.flagOnly.push(name);
    else if (positional) out.positionOnly.push(name);
  }
  return out;
}

/** The backticked command names of one clause of the sentence. */
function named(text: string, clause: RegExp): string[] {
  const m = clause.exec(text);
  assert.ok(m?.[1], `docs/cli.md: no clause matching ${clause}`);
  return [...m[1].matchAll(/`([^`]+)`/g)].map((n) => n[1] ?? '');
}

test('docs/cli.md says which commands take files by position and with -f, as the command tree has them', () => {
  const text = prose(readDoc('docs/cli.md')).replace(/\s*\n\s*/g, ' ');
  const says = {
    both: named(text, /by position and with `-f FILE` \([^)]*\), ([^;]+);/),
    flagOnly: named(text, /with `-f` only, ([^;(]+)/),
    positionOnly: named(text, /by position only, ([^;(.]+)/),
  };
  const tree = derived();
  for (const k of Object.keys(tree) as Array<keyof typeof tree>) assert.deepEqual(says[k].sort(), tree[k].sort(), k);
});
