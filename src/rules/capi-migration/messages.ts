// What capi-migration says, in both engines: the hook's name, the annotation key it would become, and why the API
// server would refuse that key (apimachinery's qualified-name words, src/core/qualified-name.ts).
import { invalidField } from '../../core/messages/field.js';
import { message } from '../../core/messages/message.js';

export const unconvertibleMessage = message<{ path: string; name: string; key: string; errors: string }>((w) =>
  invalidField(w.text('path'), w.quoted('name'), [
    'cannot become the Cluster API hook annotation ',
    w.quoted('key'),
    ': ',
    w.text('errors'),
  ]),
);
