// quorum-protection's words. The rule runs in the webhook only (native mode cannot list the cluster's Machines), so
// these are rendered for TypeScript alone; they still live beside the rule, as every rule's words do.
import { forbiddenField } from '../../core/messages/field.js';
import { message } from '../../core/messages/message.js';
import { QUORUM_ACK_ANNOTATION } from '../../core/quorum.js';

type Removal = {
  /** Where the removed hook was in the stored object. */
  path: string;
  /** The removed hook's name, and the protection's (policy quorumHooks[].name). */
  hook: string;
  quorum: string;
  /** The Machine the request strips, its namespace and cluster (the cluster label's value, or "" for none). */
  machine: string;
  namespace: string;
  cluster: string;
  unlabelled: boolean;
};

type Others = Removal & {
  /** The other Machines' names, comma-separated, and whether there are several. */
  others: string;
  plural: boolean;
};

const clusterWords = message<Removal>((w) => [
  w.when(
    'unlabelled',
    ['the Machines of namespace ', w.text('namespace'), ' without a cluster label'],
    ['cluster ', w.text('cluster')],
  ),
]);

/** "Machine m-0 of cluster c is" / "Machines m-0, m-3 of cluster c are". */
const othersWords = message<Others>((w) => [
  w.when('plural', 'Machines ', 'Machine '),
  w.text('others'),
  ' of ',
  clusterWords,
  w.when('plural', ' are', ' is'),
]);

/** Another control-plane Machine of the cluster is deleting without the hook, and the request does not name it. */
export const breachMessage = message<Others & { acknowledge: string }>((w) =>
  forbiddenField(w.text('path'), [
    'removing quorum hook ',
    w.quoted('hook'),
    ' from control-plane Machine ',
    w.text('machine'),
    ' is refused while control-plane ',
    othersWords,
    ' deleting without it (',
    w.text('quorum'),
    '): two control-plane Machines deleting unprotected at once can lose etcd quorum. Wait until that deletion ends, ',
    `or, knowing that, set annotation ${QUORUM_ACK_ANNOTATION}=`,
    w.text('acknowledge'),
    ' on ',
    w.text('machine'),
    ' in the same request',
  ]),
);

/** The cluster's Machines could not be listed: nothing shows whether another is deleting unprotected. */
export const lookupFailedMessage = message<Removal & { reason: string }>((w) =>
  forbiddenField(w.text('path'), [
    'removing quorum hook ',
    w.quoted('hook'),
    ' from control-plane Machine ',
    w.text('machine'),
    ' is refused: the control-plane Machines of ',
    clusterWords,
    ' could not be listed (',
    w.text('reason'),
    '), so nothing shows that no other is deleting without it (',
    w.text('quorum'),
    '); retry the request',
  ]),
);

/**
 * Acknowledged: allowed, with the Machines the request named. Short: the webhook cuts a warning at 120 characters
 * (src/admission/limits.ts), so the request's own Machine is left to the audit annotation, which keeps the rest.
 */
export const acknowledgedWarning = message<Others>((w) => [
  'quorum acknowledged: ',
  w.text('hook'),
  ' removed while ',
  w.text('others'),
  w.when('plural', ' are', ' is'),
  ' deleting without it; audited',
]);
