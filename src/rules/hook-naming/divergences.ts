// Where native mode words hook-naming otherwise than the webhook: the order of a Cluster API key's problems.
import type { Divergence } from '../../core/divergence.js';

export const hookNamingDivergences = (): Divergence[] => [
  {
    rule: 'hook-naming',
    text: 'a Cluster API key that only starts with a hook prefix gets the "must be <prefix>/<name>" message first, where the webhook lists any qualified-name problem before it',
  },
];
