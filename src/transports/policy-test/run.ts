// Runs a test file's cases through the webhook's own path (handle('mutate-then-validate'): mutate, then validate the mutated
// object), offline, and compares what each ends with against what it expects.
import { handle } from '../../admission/handle.js';
import { carrierFor, STAGES } from '../../core/carriers.js';
import { metadata } from '../../core/guards.js';
import { ownersToCheck } from '../../rules/owner-only-removal/owners-to-check.js';
import { serviceAccountUsername, type Policy } from '../../core/policy.js';
import { quorumLookup } from '../../core/quorum.js';
import { apiGroupOf, hasChildRules } from '../../rules/children-bind.js';
import { parentFactOf, parentRequests } from '../../core/children.js';
import { gvkOf } from '../../core/api-version.js';
import type {
  Decision,
  KubeObject,
  Mutation,
  OwnerAccess,
  Ownership,
  ParentFact,
  ReviewInput,
  UserInfo,
} from '../../core/types.js';
import type { LoadedCase, LoadedFile, StatedParents } from './load.js';
import type { CaseResult, Failure, FileResult, Observed } from './report.js';
import { EVERY_OWNER, type ExpectedHook, type Grant, type Identity, type Subject } from './schema.js';

/** Who a case is judged as when it names no identity: a user no policy registers, so removals are checked. */
export const DEFAULT_USERNAME = 'hookkeeper-test';

/** The userInfo the API server would send for an identity, with the groups it adds to every authenticated one. */
export function userInfoOf(identity: Identity | undefined): UserInfo {
  const extra = identity?.groups ?? [];
  const sa = identity?.serviceAccount;
  const groups = sa
    ? ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`, 'system:authenticated']
    : ['system:authenticated'];
  return {
    username: sa ? serviceAccountUsername(sa) : (identity?.user ?? DEFAULT_USERNAME),
    groups: [...new Set([...extra, ...groups])],
  };
}

/** Whether an RBAC subject names this user (by name, a group of theirs, or their service account). */
export function subjectMatches(s: Subject, user: UserInfo): boolean {
  if (s.kind === 'User') return s.name === user.username;
  if (s.kind === 'Group') return user.groups.includes(s.name);
  return (
    s.namespace !== undefined && serviceAccountUsername({ namespace: s.namespace, name: s.name }) === user.username
  );
}

/**
 * The ownership fact the webhook gathers from RBAC, from the grants a test declares instead: owners a grant names
 * (in the object's namespace or cluster-wide) are protected, and for each owner the core asks about, the requester
 * is allowed through a grant naming it, holds wildcard rights through a grant of every owner, or is denied. The
 * declared grants are the whole of the cluster's, so they are known.
 */
export function ownershipFromGrants(grants: readonly Grant[], policy: Policy, input: ReviewInput): Ownership {
  const here = grants.filter((g) => g.namespace === undefined || g.namespace === input.namespace);
  const granted = new Set(here.filter((g) => g.owner !== EVERY_OWNER).map((g) => g.owner));
  const mine = here.filter((g) => subjectMatches(g.subject, input.userInfo));
  const wildcard = mine.some((g) => g.owner === EVERY_OWNER);
  const access: Record<string, OwnerAccess> = {};
  for (const owner of ownersToCheck(policy, input, granted))
    access[owner] = wildcard ? 'wildcard' : mine.some((g) => g.owner === owner) ? 'allowed' : 'denied';
  return { granted, access, grantsKnown: true };
}

/**
 * Whether an owner-only-removal or template-hook-removed outcome rested on the registry alone, where a grant could
 * have changed it.
 */
function ownerJudgedWithoutRbac(d: Decision): boolean {
  const byOwnership = (v: { rule: string }): boolean =>
    v.rule === 'owner-only-removal' || v.rule === 'template-hook-removed';
  return (
    d.denials.some(byOwnership) ||
    d.warnings.some(byOwnership) ||
    d.notices.some((n) => n.unverifiedOwner !== undefined)
  );
}

export const NO_GRANTS_NOTE =
  "no grants declared: judged by the policy's owners registry and break-glass only; an RBAC grant (remove on " +
  'hookowners.hookkeeper.io/<owner>) could change this outcome in a cluster: declare grants to test it';

export const NO_CLUSTER_MACHINES_NOTE =
  'no clusterMachines declared: quorum-protection is not judged; in a cluster, another control-plane Machine ' +
  'deleting without the quorum hook could refuse this removal: declare clusterMachines to test it';

export const PARENTS_NOTE =
  'a child-resource rule selects this kind: its parent is not looked up offline, so whether the parent exists or ' +
  'is deleting is not judged here: declare parents to test it';

const hookList = (hooks: readonly ExpectedHook[]): string =>
  `[${hooks.map((h) => `${h.name} (${h.owner})`).join(', ')}]`;
const key = (h: ExpectedHook): string => `${h.name}\u0000${h.owner}`;
/** Hooks compared as multisets: a list's order is not what a hook means, and annotations have none. */
const sameHooks = (a: readonly ExpectedHook[], b: readonly ExpectedHook[]): boolean =>
  a.length === b.length && JSON.stringify(a.map(key).sort()) === JSON.stringify(b.map(key).sort());

const indented = (lines: readonly string[]): string => lines.map((l) => `\n    ${l}`).join('');

/** A case's expectations against what a request ended with: each one missed, none when the case passes. */
export function compare(c: LoadedCase, got: Observed): Failure[] {
  const out: Failure[] = [];
  const e = c.expect;
  const verdict = (allowed: boolean): string => (allowed ? 'allowed' : 'denied');
  if (e.allowed !== got.allowed)
    out.push({
      expectation: 'allowed',
      expected: e.allowed,
      got: got.allowed,
      message: `expected ${verdict(e.allowed)}, got ${verdict(got.allowed)}${got.messages.length > 0 ? `:${indented(got.messages)}` : ''}`,
    });
  for (const fragment of e.messages ?? []) {
    if (got.messages.some((m) => m.includes(fragment))) continue;
    out.push({
      expectation: 'messages',
      expected: fragment,
      got: got.messages,
      message:
        got.messages.length === 0
          ? `expected a denial message containing ${JSON.stringify(fragment)}, got none`
          : `expected a denial message containing ${JSON.stringify(fragment)}, got:${indented(got.messages)}`,
    });
  }
  if (e.warnings?.length === 0 && got.warnings.length > 0)
    out.push({
      expectation: 'warnings',
      expected: [],
      got: got.warnings,
      message: `expected no warnings, got:${indented(got.warnings)}`,
    });
  for (const fragment of e.warnings ?? []) {
    if (got.warnings.some((w) => w.includes(fragment))) continue;
    out.push({
      expectation: 'warnings',
      expected: fragment,
      got: got.warnings,
      message:
        got.warnings.length === 0
          ? `expected a warning containing ${JSON.stringify(fragment)}, got none`
          : `expected a warning containing ${JSON.stringify(fragment)}, got:${indented(got.warnings)}`,
    });
  }
  for (const stage of STAGES) {
    const want = e.hooks?.[stage];
    if (want === undefined) continue;
    const have = got.hooks?.[stage];
    if (have === undefined) {
      out.push({
        expectation: 'hooks',
        stage,
        expected: want,
        got: null,
        message: `expected ${stage} hooks ${hookList(want)}, got none: ${c.kind.group}/${c.kind.kind} ${got.hooks ? `has no ${stage} stage` : 'carries no hooks'}`,
      });
    } else if (!sameHooks(want, have)) {
      out.push({
        expectation: 'hooks',
        stage,
        expected: want,
        got: have,
        message: `expected ${stage} hooks ${hookList(want)}, got ${hookList(have)}`,
      });
    }
  }
  return out;
}

/**
 * The parent facts serve's lookups would give the request, from the parents a test states instead: each parent the
 * child rules name is the stated object of its API group, kind, namespace and name, or not found; or every lookup
 * failed as stated.
 */
export function parentsFrom(stated: StatedParents, policy: Policy, input: ReviewInput): Record<string, ParentFact> {
  const facts: Record<string, ParentFact> = {};
  for (const req of parentRequests(policy, input)) {
    if ('unavailable' in stated) {
      facts[req.key] = { found: false, reason: stated.unavailable, message: 'the test case states the lookup failed' };
      continue;
    }
    const group = apiGroupOf(req.apiVersion);
    const found = stated.objects.find((o) => {
      const gvk = gvkOf(o);
      const meta = metadata(o);
      return (
        gvk?.group === group &&
        gvk.kind === req.kind &&
        meta['name'] === req.name &&
        (typeof meta['namespace'] === 'string' ? meta['namespace'] : '') === req.namespace
      );
    });
    facts[req.key] = found
      ? parentFactOf(found, req)
      : { found: false, reason: 'NotFound', message: `${req.kind} ${req.name} is not among the test's parents` };
  }
  return facts;
}

/** The request a case makes, as the webhook would see it: with the RBAC facts its grants declare, if any. */
export function reviewOf(c: LoadedCase, policy: Policy): ReviewInput {
  const subject = (c.object ?? c.oldObject) as KubeObject;
  const meta = metadata(subject);
  const userInfo = userInfoOf(c.identity);
  const base: ReviewInput = {
    operation: c.operation,
    kind: c.kind,
    ...(typeof meta['namespace'] === 'string' && meta['namespace'] !== '' ? { namespace: meta['namespace'] } : {}),
    ...(typeof meta['name'] === 'string' && meta['name'] !== '' ? { name: meta['name'] } : {}),
    object: c.object,
    oldObject: c.oldObject,
    userInfo,
    dryRun: false,
  };
  // As the webhook does: the facts are gathered for the request as sent, before mutation. The stated Machines are the
  // whole of what serve's list would find (or its failure): the rule re-checks each one's cluster, as it does a list's.
  const context: ReviewInput['context'] = {
    ...(c.grants ? { ownership: ownershipFromGrants(c.grants, policy, base) } : {}),
    ...(c.quorum ? { quorum: c.quorum } : {}),
    ...(c.parents ? { parents: parentsFrom(c.parents, policy, base) } : {}),
  };
  return Object.keys(context).length > 0 ? { ...base, context } : base;
}

/** What the webhook's path ends with on a case's request: the request, its decision and mutation. */
export function judge(c: LoadedCase, policy: Policy): { input: ReviewInput; decision: Decision; mutation: Mutation } {
  const input = reviewOf(c, policy);
  return { input, ...handle('mutate-then-validate', policy, input) };
}

/** The response's warnings, uncapped: break-glass and unverified notices, then `<rule>: <message>` per warning. */
export function warningsOf(decision: Decision): string[] {
  const warnings: string[] = [];
  for (const n of decision.notices) if (n.warning !== undefined) warnings.push(n.warning);
  for (const v of decision.warnings) warnings.push(`${v.rule}: ${v.message}`);
  return warnings;
}

/** The hooks an object carries per stage, in the terms of a case's `expect.hooks` (undefined: not a carrier). */
export function hooksOf(c: LoadedCase, object: KubeObject | null): Observed['hooks'] {
  const carrier = carrierFor(c.kind);
  if (!carrier || object === null) return undefined;
  const out: NonNullable<Observed['hooks']> = Object.fromEntries(carrier.stages.map((s) => [s, []]));
  const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
  for (const h of carrier.read(object).hooks) out[h.stage]?.push({ name: text(h.name), owner: text(h.owner) });
  return out;
}

export function runCase(c: LoadedCase, policy: Policy): CaseResult {
  const { input, decision, mutation } = judge(c, policy);
  const { userInfo } = input;
  const warnings = warningsOf(decision);
  const hooks = hooksOf(c, mutation.mutated ?? c.object);
  const got: Observed = {
    allowed: decision.allowed,
    messages: decision.denials.map((v) => v.message),
    warnings,
    ...(hooks ? { hooks } : {}),
  };
  const notes: string[] = [];
  if (!c.grants && ownerJudgedWithoutRbac(decision)) notes.push(NO_GRANTS_NOTE);
  if (!c.parents && hasChildRules(policy, input)) notes.push(PARENTS_NOTE);
  // What serve would list for, unlisted: the removal's verdict rests on Machines the case does not state.
  if (!c.quorum && quorumLookup(policy, input)) notes.push(NO_CLUSTER_MACHINES_NOTE);
  const failures = compare(c, got);
  return {
    name: c.name,
    line: c.line,
    passed: failures.length === 0,
    operation: c.operation,
    userInfo: { username: userInfo.username, groups: [...userInfo.groups] },
    got,
    failures,
    notes,
  };
}

export function runFile(loaded: LoadedFile): FileResult {
  const head = { file: loaded.file, ...(loaded.policyFile === undefined ? {} : { policy: loaded.policyFile }) };
  if (loaded.problems.length > 0 || !loaded.policy) return { ...head, problems: loaded.problems, cases: [] };
  const policy = loaded.policy;
  return { ...head, problems: [], cases: loaded.cases.map((c) => runCase(c, policy)) };
}
