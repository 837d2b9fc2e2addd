// Rule single-owner: a hook name is a map key with exactly one owner, and reserved names keep their owner.
import { wellFormed, type Hook } from '../../carriers.js';
import { duplicate } from '../../field-errors.js';
import { crossStageOwnerMessage, reservedNameMessage } from './messages.js';
import { quote } from '../../guards.js';
import type { Violation } from '../../types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { nativeSingleOwner } from './cel.js';
import { singleOwnerDivergences } from './divergences.js';

export const singleOwner: Rule = ({ policy, hooks }) => {
  const violations: Violation[] = [];
  const all = wellFormed(hooks.hooks);
  // By identity: a list naming one hook twice is a duplicate; annotation keys are unique, so never one.
  const firstById = new Map<string, Hook>();
  // Every preDrain hook by name: on Cluster API two keys may give one name, and each is compared.
  const drainByName = new Map<string, Hook[]>();

  for (const h of all) {
    const idKey = `${h.stage}\u0000${h.id}`;
    const first = firstById.get(idKey);
    if (first) {
      violations.push({
        rule: 'single-owner',
        path: h.path,
        message: duplicate(h.path, { name: h.name }).message,
        fix: `hook ${quote(h.name)} appears twice in ${h.stage} (at ${first.path} and ${h.path}): keep one entry, owned by one controller`,
        hook: { stage: h.stage, name: h.name, owner: h.owner },
        key: `duplicate:${h.stage}:${quote(h.id)}`,
      });
    } else {
      firstById.set(idKey, h);
      if (h.stage === 'preDrain') drainByName.set(h.name, [...(drainByName.get(h.name) ?? []), h]);
    }
  }

  // The same name in both stanzas names one hook, so one owner.
  for (const h of all.filter((x) => x.stage === 'preTerminate')) {
    for (const drain of drainByName.get(h.name) ?? []) {
      if (drain.owner === h.owner) continue;
      violations.push({
        rule: 'single-owner',
        path: h.ownerPath,
        message: crossStageOwnerMessage.toJs({
          path: h.ownerPath,
          owner: h.owner,
          name: h.name,
          drainOwner: drain.owner,
        }),
        fix: `use one owner for hook ${quote(h.name)} in both stanzas, or rename one of them`,
        hook: { stage: h.stage, name: h.name, owner: h.owner },
        key: `cross-stage:${quote(h.id)}:${quote(h.owner)}:${quote(drain.id)}:${quote(drain.owner)}`,
      });
    }
  }

  // A map, not a search of the policy's list per hook: the cost stays one lookup per hook.
  const reservedOwner = new Map<string, string>();
  for (const r of policy.reservedHooks) if (!reservedOwner.has(r.name)) reservedOwner.set(r.name, r.owner);
  for (const h of all) {
    const owner = reservedOwner.get(h.name);
    const reserved = owner === undefined ? undefined : { name: h.name, owner };
    if (reserved && reserved.owner !== h.owner) {
      violations.push({
        rule: 'single-owner',
        path: h.ownerPath,
        message: reservedNameMessage.toJs({
          path: h.ownerPath,
          owner: h.owner,
          name: h.name,
          reservedOwner: reserved.owner,
        }),
        fix: `hook ${quote(h.name)} belongs to ${quote(reserved.owner)}: choose another name for your hook`,
        hook: { stage: h.stage, name: h.name, owner: h.owner },
        key: `reserved:${h.stage}:${quote(h.id)}:${quote(h.owner)}`,
      });
    }
  }
  return { violations };
};

export const singleOwnerRule: CarrierRuleModule<'single-owner'> = {
  id: 'single-owner',
  order: 30,
  enforcement: 'deny',
  ratchets: true,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  facts: [],
  summary: 'a hook name appears once per stage, carries one owner in both stages, and a reserved name only its owner',
  validate: singleOwner,
  native: { validating: nativeSingleOwner, readsNameIndex: true, divergences: singleOwnerDivergences },
};
