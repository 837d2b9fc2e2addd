// owner-only-removal's words (and the other rules' that name owners, grants or break-glass), for the TypeScript rules
// and their CEL: the denials, the warnings, the suggested grant and the policy's identities as text.
import { describeIdentities, type OwnerIdentities, type Policy } from '../policy.js';
import { forbiddenField, invalidField } from './field.js';
import { message, words, type Message } from './message.js';

/** The virtual resource RBAC grants hook ownership on, as certificates.k8s.io grants signers: resourceName = owner. */
export const HOOKOWNERS = Object.freeze({ group: 'hookkeeper.io', resource: 'hookowners', verb: 'remove' });
const { verb: VERB, resource: RESOURCE, group: GROUP } = HOOKOWNERS;

/** The policy's break-glass identities, as every message that offers break-glass names them. */
export function breakGlassText(policy: Policy): string {
  const glass = [...policy.breakGlass.users, ...policy.breakGlass.groups.map((g) => `group ${g}`)];
  return glass.length > 0 ? `break-glass: ${glass.join(', ')}` : 'no break-glass identity is configured';
}

const WILDCARD_WARNING_HEAD_TEXT = 'wildcard RBAC: ';

/** What a denial says for who may when the policy registers an owner without identities. */
export const NO_IDENTITY_REGISTERED = '(no identity registered)';

/** The identities the policy registers for an owner, as a denial lists them. */
export function ownerIdentitiesText(ids: OwnerIdentities): string {
  return describeIdentities(ids).join(', ') || NO_IDENTITY_REGISTERED;
}

/** Who may act for an owner RBAC protects and the policy does not register. */
export const RBAC_ALLOWED_IDENTITIES = 'whom RBAC allows';

/** A hook an UPDATE removes or re-owns, and who tried. */
export type ChangedHook = {
  path: string;
  user: string;
  /** Re-owned (still there with another owner), not removed. */
  reowned: boolean;
  stage: string;
  name: string;
  owner: string;
  ownerless: boolean;
};

/** The denial of a removal or re-owning: which hook, whose, who tried, then `reason` (one of the reasons below). */
export const removalDenialMessage = message<ChangedHook & { reason: string }>((w) =>
  forbiddenField(w.text('path'), [
    w.quoted('user'),
    ' may not ',
    w.when('reowned', 'change the owner of ', 'remove '),
    w.text('stage'),
    ' hook ',
    w.quoted('name'),
    ' ',
    w.when('ownerless', 'which has no owner', ['owned by ', w.quoted('owner')]),
    '; ',
    w.text('reason'),
  ]),
);

/** Whose grant would allow it: `grant` is grantCommandMessage for the user, or namedGrantMessage. */
type Grant = { user: string; grant: string };
const grantFor = message<Grant>((w) => ['to let ', w.quoted('user'), ' act for it: ', w.text('grant')]);

/**
 * The same place offline (`validate`, TypeScript only): RBAC is not visible there, so a grant to the identity it
 * judged as changes nothing; what does is judging as the identity that makes the change, and in the cluster the
 * owner's grant (`grant` is grantCommandMessage for the owner's controller, a service account to fill in).
 */
const offlineGrantFor = message<Grant>((w) => [
  'validate judged this as ',
  w.quoted('user'),
  ": give --as (and --as-group) the identity that makes the change; in the cluster, the owner's controller acts for it through a grant: ",
  w.text('grant'),
]);

type OwnerOnly = Grant & { who: string; breakGlass: string; unchecked: string };
const ownerOnlyWith = (tail: Message<Grant>): Message<OwnerOnly> =>
  message<OwnerOnly>((w) => [
    'only its owner may: ',
    w.text('who'),
    ' (',
    w.text('breakGlass'),
    '); ',
    w.text('unchecked'),
    tail,
  ]);

/** A registered (or RBAC-protected) owner's hook: who may, and the grant that would let the user. */
export const ownerOnlyReason = ownerOnlyWith(grantFor);
/** The same, offline: see offlineGrantFor. */
export const offlineOwnerOnlyReason = ownerOnlyWith(offlineGrantFor);

/**
 * An owner the registry does not name while RBAC's grants are not listed: it may be protected. When the user's access
 * went unanswered too, one sentence says both (not "could not be checked" twice).
 */
export const grantsUnknownReason = message<Grant & { breakGlass: string; accessUnknown: boolean }>((w) => [
  'no identity is registered for that owner, and ',
  w.when(
    'accessUnknown',
    [
      "whether an RBAC grant protects it (hookkeeper has not listed the cluster's RBAC) or lets ",
      w.quoted('user'),
      ' act for it could not be checked',
    ],
    ["whether an RBAC grant protects it could not be checked (hookkeeper has not listed the cluster's RBAC)"],
  ),
  ', so the removal is not allowed (',
  w.text('breakGlass'),
  '); ',
  grantFor,
]);

type UnverifiedDeny = Grant & { ownerless: boolean; breakGlass: string; unchecked: string };
const unverifiedDenyWith = (tail: Message<Grant>): Message<UnverifiedDeny> =>
  message<UnverifiedDeny>((w) =>
    w.when(
      'ownerless',
      [
        'no grant can name an empty owner and unverifiedRemoval is deny, so only break-glass may (',
        w.text('breakGlass'),
        ')',
      ],
      [
        'no identity is registered or granted for that owner and unverifiedRemoval is deny (',
        w.text('breakGlass'),
        '); ',
        w.text('unchecked'),
        tail,
      ],
    ),
  );

/** unverifiedRemoval: deny, for an owner nobody registered or granted (or none at all). */
export const unverifiedDenyReason = unverifiedDenyWith(grantFor);
/** The same, offline: see offlineGrantFor. */
export const offlineUnverifiedDenyReason = unverifiedDenyWith(offlineGrantFor);

/** RBAC was asked about the owner and gave no answer. */
export const uncheckedNote = message<{ user: string; owner: string; adding: boolean }>((w) => [
  'whether RBAC lets ',
  w.quoted('user'),
  ' act for ',
  w.quoted('owner'),
  ' could not be checked, so the ',
  w.when('adding', 'addition', 'removal'),
  ' is not allowed; ',
]);

/** wildcardGrants: deny, for a removal only wildcard RBAC rights allowed; `grant` names no user. */
export const wildcardReason = message<Grant & { breakGlass: string }>((w) => [
  'RBAC lets ',
  w.quoted('user'),
  ' act for every hook owner, which is not ownership, and wildcardGrants is deny: use a break-glass identity (',
  w.text('breakGlass'),
  ') or one whose grant names the owner; to let an identity act for it: ',
  w.text('grant'),
]);

/** The kubectl commands that let a subject act for an owner (values from ownership.ts's grantCommand). */
export const grantCommandMessage = message<{ role: string; ownerWord: string; binding: string; subject: string }>(
  (w) => [
    'kubectl create clusterrole ',
    w.text('role'),
    ` --verb=${VERB} --resource=${RESOURCE}.${GROUP} --resource-name=`,
    w.text('ownerWord'),
    ' && kubectl create clusterrolebinding ',
    w.text('binding'),
    ' --clusterrole=',
    w.text('role'),
    ' ',
    w.text('subject'),
  ],
);

/** The grant named, not spelt out (native mode, where CEL cannot word the commands). */
export const namedGrantMessage = message<{ owner: string }>((w) => [
  `grant ${VERB} on ${RESOURCE}.${GROUP} with resourceName `,
  w.quoted('owner'),
]);

/** The grant that protects an owner, in a few words (a warning has 120 characters). */
export const shortGrantMessage = message<{ owner: string }>((w) => [`${VERB} on ${RESOURCE}/`, w.text('owner')]);

type Allowed = Omit<ChangedHook, 'path' | 'ownerless'>;
const mayChange = message<Allowed>((w) => [
  w.text('user'),
  ' may ',
  w.when('reowned', 'change the owner of ', 'remove '),
  w.text('stage'),
  ' hook ',
  w.text('name'),
  ' of ',
  w.text('owner'),
  '; audited',
]);

/** A hook added under a protected owner's name, and who tried (a squat unless they act for the owner). */
export type AddedHook = { path: string; user: string; stage: string; name: string; owner: string };

/** The denial of a protected owner's hook added by someone who does not act for the owner: `reason` as above. */
export const additionDenialMessage = message<AddedHook & { reason: string }>((w) =>
  forbiddenField(w.text('path'), [
    w.quoted('user'),
    ' may not add ',
    w.text('stage'),
    ' hook ',
    w.quoted('name'),
    ' owned by ',
    w.quoted('owner'),
    ': a Machine carrying it waits for that owner; ',
    w.text('reason'),
  ]),
);

type Added = Omit<AddedHook, 'path'>;
const mayAdd = message<Added>((w) => [
  w.text('user'),
  ' may add ',
  w.text('stage'),
  ' hook ',
  w.text('name'),
  ' of ',
  w.text('owner'),
  '; audited',
]);

/** Break-glass added a protected owner's hook: allowed, warned and audited. */
export const breakGlassAddWarning: Message<Added> = words('break-glass: ', mayAdd);

/** wildcardGrants: warn, for a protected owner's hook only wildcard RBAC rights let the user add. */
export const wildcardAddWarning: Message<Added> = words(WILDCARD_WARNING_HEAD_TEXT, mayAdd);

/** Break-glass removed or re-owned a hook: allowed, warned and audited. */
export const breakGlassWarning: Message<Allowed> = words('break-glass: ', mayChange);

/** The wildcardGrants: warn warning's head, before the words breakGlassWarning also says. */
export const WILDCARD_WARNING_HEAD = WILDCARD_WARNING_HEAD_TEXT;

/** wildcardGrants: warn, for a removal only wildcard RBAC rights allowed. */
export const wildcardWarning: Message<Allowed> = words(WILDCARD_WARNING_HEAD, mayChange);

/**
 * unverifiedRemoval: warn. Within a warning's 120 characters for everyday names; the requester reads it, so the user
 * comes last: a long service account name is what the answer's cut takes (the audit annotation has it).
 */
export const unverifiedWarning = message<Omit<ChangedHook, 'path' | 'stage'>>((w) => {
  const by = [w.when('reowned', 're-owned ', ''), 'by ', w.text('user')];
  return w.when(
    'ownerless',
    ['unverified: hook ', w.text('name'), ' has no owner to grant; ', by],
    ['unverified: hook ', w.text('name'), ' of ', w.text('owner'), '; grant ', shortGrantMessage, '; ', by],
  );
});

/**
 * How to act on unverifiedRemoval: warn's warning (CLI output; the webhook's warning has no room): protect the owner,
 * so a removal of its hooks is verified next time, or keep the hook if its owner did not remove it. `grant` is
 * ownership.ts's grantCommand for the owner's controller.
 */
export const unverifiedFix = message<{ owner: string; grant: string; ownerless: boolean }>((w) =>
  w.when(
    'ownerless',
    'keep the hook unless its controller removed it: it has no owner, so no removal of it can be verified; give hooks an owner that is registered or granted',
    [
      'if ',
      w.quoted('owner'),
      ' removed its own hook, nothing is wrong; to have removals of its hooks verified, grant it to the controller that owns the hook (',
      w.text('grant'),
      ') or register it under owners in the hookkeeper policy; otherwise keep the hook: ',
      w.quoted('owner'),
      ' removes it when its work is done',
    ],
  ),
);

/** Whether RBAC was asked about strictOwners' owners, as its denial says. */
export const RBAC_NOTES = Object.freeze({
  known: '',
  notListed: ' (the RBAC grants are not listed yet)',
  notConsulted: ' (RBAC not consulted)',
});

/** strictOwners: a hook added with an owner nobody registered or granted. */
export const strictOwnersMessage = message<{
  path: string;
  owner: string;
  name: string;
  ownerless: boolean;
  rbac: string;
}>((w) =>
  invalidField(w.text('path'), w.quoted('owner'), [
    'owner of hook ',
    w.quoted('name'),
    ' is not registered in the policy and strictOwners is on',
    w.when('ownerless', '', [`, and no RBAC grant of ${VERB} on ${RESOURCE}.${GROUP} names it`, w.text('rbac')]),
  ]),
);
