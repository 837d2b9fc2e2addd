// Semantic checks of quorumHooks beyond the schema: a quorum hook guards Machines (the kinds whose hooks gate their
// deletion), its hook names obey the naming rules, and its name is unique (audit findings and metrics carry it).
import { CARRIERS, carrierFor } from '../../core/carriers.js';
import { checkString, NAME_LIMITS } from '../../rules/hook-naming/rule.js';
import type { Problem } from '../../errors.js';
import { displayPath } from './paths.js';
import type { CheckedPolicy } from './policy-file.js';
import { nearest } from './suggest.js';

const MACHINES = CARRIERS.filter((c) => c.gatesDeletion).map((c) => `${c.group}/${c.kind}`);

export function quorumHookProblems(p: CheckedPolicy): Problem[] {
  const { at, schemaValid, valueAt } = p;
  const problems: Problem[] = [];
  const list = valueAt('/quorumHooks');
  if (!Array.isArray(list) || !schemaValid('/quorumHooks')) return problems;
  const names = new Set<string>();
  list.forEach((_, i) => {
    const base = `/quorumHooks/${i}`;
    if (schemaValid(`${base}/match/kinds`))
      (valueAt(`${base}/match/kinds`) as Array<{ group: string; kind: string }>).forEach((k, j) => {
        if (carrierFor({ ...k, version: '' })?.gatesDeletion) return;
        const near = nearest(`${k.group}/${k.kind}`, MACHINES);
        problems.push(
          at(
            `${base}/match/kinds/${j}`,
            `a quorum hook protects Machines, not ${JSON.stringify(`${k.group}/${k.kind}`)}${near ? `: did you mean ${near}?` : ''} (kinds: ${MACHINES.join(', ')})`,
          ),
        );
      });
    if (schemaValid(`${base}/hooks`))
      (valueAt(`${base}/hooks`) as string[]).forEach((name, j) => {
        const shown = displayPath(`${base}/hooks/${j}`);
        for (const c of checkString(shown, name, NAME_LIMITS))
          problems.push(at(`${base}/hooks/${j}`, c.message.replace(`${shown}: `, '')));
      });
    if (schemaValid(`${base}/name`)) {
      const name = valueAt(`${base}/name`) as string;
      if (names.has(name)) problems.push(at(`${base}/name`, `duplicate quorum hook name ${name}`));
      names.add(name);
    }
  });
  return problems;
}
