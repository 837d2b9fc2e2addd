// Where native mode decides single-owner otherwise than the webhook: CEL indexes a list stage by name.
import { namesAHookTwice, type Divergence } from '../../core/divergence.js';

export const singleOwnerDivergences = (): Divergence[] => [
  {
    rule: 'single-owner',
    text: 'a Machine API stage naming one hook twice, in the object or the stored object, cannot be indexed by name in CEL and is refused with CEL\'s "key already exists" error, ratcheting aside (the Machine API CRDs\' list-map key refuses such objects first); Cluster API hooks are indexed by annotation key, which is unique',
    verdictDiffers: namesAHookTwice,
  },
];
