// `explain -o text`: the explanation for a person at a terminal, in the order they need it: where the deletion
// stands, then each hook with who must act, what to check, and the command.
import { formatDuration } from '../../core/duration.js';
import { quote } from '../../core/guards.js';
import type { Evidence, HookExplanation, MachineExplanation, Remover } from '../../core/explain/model.js';

const HOLDS: Readonly<Record<HookExplanation['holds'], string>> = {
  now: 'holds the deletion now',
  next: 'will hold the deletion at its stage',
  passed: 'no longer holds it (the deletion is past its stage)',
  none: 'would hold a deletion',
};

const evidence = (e: Evidence): string => `${e.basis}: ${e.detail}`;
const age = (s: number | undefined): string => (s === undefined ? '' : ` (for ${formatDuration(s * 1000)})`);

function remover(r: Remover): string {
  if (r.kind === 'Anyone') return r.name;
  const who = `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
  const exists =
    r.exists === undefined
      ? ''
      : r.exists === 'present'
        ? ', exists'
        : r.exists === 'absent'
          ? ', DOES NOT EXIST'
          : ', existence unknown';
  const via = r.binding ? `${r.via}: ${r.binding} -> ${r.role ?? ''}` : r.via;
  return `${who} (${via}${exists})`;
}

function hookLines(h: HookExplanation): string[] {
  const out = [
    `  ${h.stage} hook ${quote(h.name)} owned by ${h.owner === '' ? '(no owner)' : quote(h.owner)}${h.ownerImplied ? ' (implied by the policy for its key: the value is empty)' : ''}: ${HOLDS[h.holds]}`,
  ];
  out.push(`    path: ${h.path}`);
  const by = h.protection.by.length > 0 ? ` by ${h.protection.by.join(' and ')}` : '';
  out.push(`    owner protected: ${h.protection.status}${by} (${h.protection.reason})`);
  if (h.controller) {
    const health = h.controller.health ? `; reports ${h.controller.health.health} (${h.controller.health.basis})` : '';
    out.push(`    controller: ${h.controller.description}${health}`);
  }
  out.push(`    may remove it:${h.removers.length > 0 ? '' : ' nobody'}`);
  for (const r of h.removers) out.push(`      - ${remover(r)}`);
  const step = h.nextStep;
  out.push(`    who must act: ${step.actor}`);
  if (step.checks.length > 0) out.push('    check first:', ...step.checks.map((c) => `      - ${c}`));
  for (const w of step.warnings) out.push(`    WARNING: ${w}`);
  if (step.command) out.push(`    then, as ${step.for ?? 'someone allowed'}:`, `      ${step.command}`);
  return out;
}

export function renderText(x: MachineExplanation): string {
  const m = x.machine;
  const out = [
    `Machine ${m.resource}/${m.name}${m.namespace ? ` -n ${m.namespace}` : ''} (${m.apiVersion}, from ${x.source === 'file' ? 'a file' : 'the cluster'})`,
    x.summary,
    '',
    'Deletion:',
  ];
  const d = x.deletion;
  if (!d.deleting) out.push('  not deleting (no metadata.deletionTimestamp)');
  else {
    out.push(`  deleting since ${d.since ?? '?'}${age(d.forSeconds)}`);
    const at = d.waitingAt;
    if (at) {
      out.push(`  waits at: ${at.step} (${evidence(at.evidence)})`);
      out.push(
        at.since && at.sinceEvidence
          ? `  waiting since ${at.since}${age(at.forSeconds)} (${evidence(at.sinceEvidence)})`
          : '  waiting since: not known',
      );
    }
  }
  for (const [field, at] of Object.entries(d.startTimes)) out.push(`  status.deletion.${field}: ${at}`);
  for (const c of d.conditions)
    out.push(`  condition ${c.path}: ${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`);
  const n = x.node;
  out.push(
    `Node: ${n.name ?? '(none)'}: ${n.status}${n.cordoned === undefined ? '' : n.cordoned ? ', cordoned' : ', not cordoned'} (${n.detail})`,
  );
  if (x.authoritativeAPI)
    out.push(
      `Authoritative API: spec ${x.authoritativeAPI.spec ?? '(unset)'}, status ${x.authoritativeAPI.status ?? '(unset)'}: ${x.authoritativeAPI.note}`,
    );
  const q = x.quorum;
  if (q) {
    out.push(`Quorum (${q.name}): ${q.state === 'at-risk' ? 'AT RISK' : q.state}: ${q.detail}`);
    if (q.fix) out.push(`  what to do: ${q.fix}`);
  }
  out.push('', x.hooks.length > 0 ? 'Hooks:' : 'Hooks: none');
  for (const h of x.hooks) out.push(...hookLines(h));
  if (x.notes.length > 0) out.push('', 'Notes:', ...x.notes.map((note) => `  - ${note}`));
  return out.join('\n');
}
