// The rules a command runs, for its --help: derived from the registry (src/core/registry.ts), never listed by hand.
import { MUTATING, VALIDATING } from '../../core/registry.js';
import type { Source } from '../../core/types.js';

/** "Rules (policy enforcement: deny | warn | off):" then one line per rule: id, default enforcement, summary. */
export function rulesHelp(source: Source, options: { mutating?: boolean } = {}): string[] {
  const rules = [...VALIDATING[source]];
  if (options.mutating) for (const r of MUTATING) if (!rules.includes(r)) rules.push(r);
  const width = Math.max(...rules.map((r) => r.id.length));
  return [
    'Rules (each set under "enforcement" in the policy: deny, warn or off; default in brackets):',
    ...rules.map((r) => `  ${r.id.padEnd(width)}  [${r.enforcement}] ${r.summary}`),
  ];
}
