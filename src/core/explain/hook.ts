// One hook of an explained Machine: whether its owner is protected and by what (the policy's registry and RBAC grants,
// judged by ownership.ts), who may remove it (as owner-only-removal decides, removers.ts), the controller behind it,
// and the safe next step.
import type { Hook } from '../carriers.js';
import { quote } from '../guards.js';
import { breakGlassText } from '../messages/ownership.js';
import { isProtected, registeredIdentities, shellWord } from '../ownership.js';
import type { Policy } from '../policy.js';
import { escapePointerToken } from '../pointer.js';
import { clusterOperatorHealth, knownOwner } from './known-owners.js';
import type { ExplainFacts, HookExplanation, NextStep, Remover } from './model.js';
import { rbacText, removersOf, type HookHolder } from './removers.js';

/** The Machine the hook is on, as a command names it. */
export interface MachineTarget {
  /** kubectl's resource.group: machines.machine.openshift.io, machines.cluster.x-k8s.io. */
  resource: string;
  namespace?: string;
  name: string;
  format: 'list' | 'annotations';
  /** Why hooks must not be removed on this copy (OpenShift's migration), if so. */
  notAuthoritative?: string;
}

function protectionOf(policy: Policy, facts: ExplainFacts, hook: Hook): HookExplanation['protection'] {
  if (hook.owner === '')
    return { status: 'unprotected', by: [], reason: 'the hook has no owner: no registry entry or grant can name it' };
  const registered = registeredIdentities(policy, hook.owner) !== undefined;
  if (facts.grants.status !== 'known') {
    if (registered)
      return {
        status: 'protected',
        by: ['registry'],
        reason: `the policy registers ${quote(hook.owner)}; RBAC grants: ${facts.grants.reason}`,
      };
    return {
      status: 'unknown',
      by: [],
      reason: `not in the policy's registry; RBAC grants could not be read: ${facts.grants.reason}`,
    };
  }
  const named = (facts.grants.byOwner[hook.owner] ?? []).filter((s) => !s.allNames);
  const ownership = { granted: new Set(named.length > 0 ? [hook.owner] : []), access: {}, grantsKnown: true };
  const by: Array<'registry' | 'rbac'> = [
    ...(registered ? (['registry'] as const) : []),
    ...(named.length > 0 ? (['rbac'] as const) : []),
  ];
  if (isProtected(policy, ownership, hook.owner))
    return {
      status: 'protected',
      by,
      reason: [
        ...(registered ? [`the policy registers ${quote(hook.owner)}`] : []),
        ...(named.length > 0
          ? [`RBAC grants remove on hookowners/${hook.owner} (${named.map((s) => rbacText(s.binding)).join(', ')})`]
          : []),
      ].join('; '),
    };
  return { status: 'unprotected', by: [], reason: `no registry entry and no RBAC grant names ${quote(hook.owner)}` };
}

/** The JSON patch that removes exactly this hook: a test of what is there, then the removal. */
function removeCommand(target: MachineTarget, hook: Hook): string {
  const ops =
    target.format === 'list'
      ? [
          { op: 'test', path: `/spec/lifecycleHooks/${hook.stage}/${hook.index}/name`, value: hook.name },
          { op: 'remove', path: `/spec/lifecycleHooks/${hook.stage}/${hook.index}` },
        ]
      : [
          { op: 'test', path: `/metadata/annotations/${escapePointerToken(hook.id)}`, value: hook.owner },
          { op: 'remove', path: `/metadata/annotations/${escapePointerToken(hook.id)}` },
        ];
  const ns = target.namespace ? ` -n ${shellWord(target.namespace)}` : '';
  return `kubectl patch ${target.resource}/${shellWord(target.name)}${ns} --type=json -p ${shellWord(JSON.stringify(ops))}`;
}

function removerName(r: Remover): string {
  if (r.kind === 'Anyone') return r.name;
  const who = `${r.kind === 'Group' ? 'group ' : ''}${r.kind === 'ServiceAccount' ? `system:serviceaccount:${r.namespace ?? ''}:` : ''}${r.name}`;
  return r.exists === 'absent' ? `${who} (does not exist)` : who;
}

function nextStepOf(
  policy: Policy,
  hook: Hook,
  holds: HookExplanation['holds'],
  removers: readonly Remover[],
  health: HookExplanation['controller'],
  target: MachineTarget,
): NextStep {
  const owner = hook.owner === '' ? 'nobody (the hook has no owner)' : quote(hook.owner);
  const known = knownOwner(hook);
  if (holds === 'none') return { actor: 'nobody: the Machine is not deleting', checks: [], warnings: [] };
  if (holds === 'passed')
    return {
      actor: 'nobody: the deletion is past this stage, so the hook no longer holds it',
      checks: [],
      warnings: [],
    };
  const actor =
    hook.owner !== ''
      ? `the owner ${owner}${known ? `, ${known.description}` : ''}: it removes the hook once its work is done`
      : known
        ? `${known.description} (the hook names no owner): it removes the hook once its work is done`
        : 'whoever added the hook: it names no owner';
  if (holds === 'next')
    return {
      actor,
      checks: [`the deletion reaches ${hook.stage} only after the earlier steps`],
      warnings: [...(known?.warnings ?? [])],
    };
  const checks: string[] = [];
  if (health?.health?.health === 'unhealthy') checks.push(`${health.health.basis}: let it recover first`);
  const own = removers.filter((r) => r.via === 'registry');
  if (own.length > 0 && own.every((r) => r.exists === 'absent'))
    checks.push(
      `the owner's registered identities no longer exist (${own.map(removerName).join(', ')}): its controller cannot remove the hook`,
    );
  checks.push(
    ...(known?.checks ?? [
      `the controller acting for ${owner} is running, and its logs say why it has not removed the hook`,
      `remove the hook by hand only if that controller is gone for good, or is done and will not remove it`,
    ]),
  );
  const warnings = [...(known?.warnings ?? [])];
  if (target.notAuthoritative) return { actor, checks: [target.notAuthoritative, ...checks], warnings };
  const allowed = removers.filter((r) => r.exists !== 'absent');
  const forText =
    `someone who may remove ${owner}'s hook: ` +
    (allowed.length > 0 ? allowed.map(removerName).join(', ') : `nobody listed (${breakGlassText(policy)})`);
  return { actor, checks, command: removeCommand(target, hook), for: forText, warnings };
}

/** One hook's explanation. */
export function explainHook(
  policy: Policy,
  facts: ExplainFacts,
  hook: Hook,
  holds: HookExplanation['holds'],
  target: MachineTarget,
  holder: HookHolder,
): HookExplanation {
  const protection = protectionOf(policy, facts, hook);
  const removers = removersOf(policy, facts, holder, hook);
  const known = knownOwner(hook);
  const controller = known
    ? {
        description: known.description,
        ...(known.clusterOperator ? { health: clusterOperatorHealth(known.clusterOperator, facts) } : {}),
      }
    : undefined;
  return {
    stage: hook.stage,
    name: hook.name,
    owner: hook.owner,
    path: hook.path,
    holds,
    protection,
    removers,
    ...(controller ? { controller } : {}),
    nextStep: nextStepOf(policy, hook, holds, removers, controller, target),
  };
}
