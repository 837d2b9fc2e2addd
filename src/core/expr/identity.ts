// Who asks, as expressions: the requester's username and groups (the leaves), and what the policy grants them by
// name, built from those leaves for both engines (src/core/identity.ts says the same of a UserInfo).
import { cel, USER } from '../cel/text.js';
import type { Policy } from '../policy.js';
import { leaf, oneOf, or, type Bool, type Str } from './expr.js';
import { exists, type List } from './lists.js';
import type { RequestEnv } from './request.js';

const inputOf = (env: unknown) => (env as RequestEnv).input;

export const USERNAME: Str = leaf(USER, (env) => inputOf(env).userInfo.username);

export const GROUPS: List<string> = leaf(cel`request.userInfo.groups`, (env) => inputOf(env).userInfo.groups);

/** The requester holds break-glass: a user the policy names, or a member of a group it names. */
export function breakGlassHolder(policy: Policy): Bool {
  return or(
    oneOf(USERNAME, policy.breakGlass.users),
    exists(GROUPS, 'g', (g) => oneOf(g, policy.breakGlass.groups)),
  );
}
