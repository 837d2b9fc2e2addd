// Static admission manifests (Kubernetes manifest-based admission control): the native render named and laid out so
// that kube-apiserver loads it from its own disk at start. Such policies are in force from the first request, and no
// API client can see, change or delete them; self-protection extends that to hookkeeper's API-based objects.
// Pure: the files as values; the CLI writes them.
import { AppError } from '../../errors.js';
import { breakGlassUser } from '../../rules/owner-only-removal/cel-messages.js';
import { celString, celStringSet } from '../../core/cel/text.js';
import { breakGlassText } from '../../core/messages/ownership.js';
import { HOOKOWNERS } from '../../core/ownership.js';
import type { Policy } from '../../core/policy.js';
import type { KubeObject } from '../../core/types.js';
import { hookSchemaCheck } from './hook-schema.js';
import { LABELS } from './match.js';
import { renderNativePolicies } from './render.js';
import {
  ADMISSION_CONFIGURATION_FILE,
  STATIC_DIRS,
  STATIC_FEATURE_GATE,
  STATIC_FILE,
  STATIC_SUFFIX,
} from './static-layout.js';
import { apiVersionsFor } from './version.js';

/** What render produces and static manifests rename: checked, as the renderer's objects are plain records. */
interface AdmissionObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [field: string]: unknown };
  spec?: Record<string, unknown>;
}

const ADMISSION_GROUP = 'admissionregistration.k8s.io';
const ADMISSION_V1 = `${ADMISSION_GROUP}/v1`;
const CONFIG_V1 = 'apiserver.config.k8s.io/v1';
/** hookkeeper's CustomResourceDefinition: RBAC grants of hook ownership are made on it. */
export const HOOKOWNERS_CRD = `${HOOKOWNERS.resource}.${HOOKOWNERS.group}`;

export interface StaticOptions {
  k8sVersion: string;
  /** Absolute path of the directory that holds the plugins' directories on every control-plane node. */
  root: string;
  /**
   * Names of hookkeeper's API-based webhook configurations to guard, or false for no self-protection. The API-mode
   * policies and bindings and the hookowners CRD are guarded whenever this is not false.
   */
  selfProtection: false | { webhookConfigurations: readonly string[] };
}

export interface StaticFile {
  /** Relative to the output directory, '/'-separated. */
  path: string;
  /** The documents of the file, in order. */
  documents: object[];
}

export interface StaticRender {
  files: StaticFile[];
  notes: string[];
}

export function staticManifests(policy: Policy, options: StaticOptions): StaticRender {
  const gateNote = staticSupport(options.k8sVersion);
  if (!options.root.startsWith('/')) {
    throw new AppError(
      'USAGE',
      `--static-root must be an absolute path on the control-plane nodes, got ${JSON.stringify(options.root)}`,
    );
  }
  const render = renderNativePolicies(policy, { k8sVersion: options.k8sVersion });
  const objects = render.objects.map(admissionObject);
  const validating: object[] = [];
  const mutating: object[] = [];
  for (const object of objects) {
    (object.kind.startsWith('Mutating') ? mutating : validating).push(asStatic(object));
  }
  if (options.selfProtection !== false) {
    validating.push(
      ...selfProtection(policy, objects, options.selfProtection.webhookConfigurations),
      ...hookSchemaProtection(policy),
    );
  }
  const notes = [...(gateNote ? [gateNote] : []), ...render.notes];
  if (options.selfProtection !== false && policy.breakGlass.users.length + policy.breakGlass.groups.length === 0) {
    notes.push(
      "self-protection: the policy names no break-glass identity, so hookkeeper's API objects can be changed or deleted only after the static files change",
    );
  }
  return {
    files: [
      { path: `${STATIC_DIRS.validating}/${STATIC_FILE}`, documents: validating },
      { path: `${STATIC_DIRS.mutating}/${STATIC_FILE}`, documents: mutating },
      { path: ADMISSION_CONFIGURATION_FILE, documents: [admissionConfiguration(options.root)] },
    ],
    notes,
  };
}

/** The AdmissionConfiguration that points each admission policy plugin at its directory under root. */
export function admissionConfiguration(root: string): object {
  const dir = (sub: string) => `${root.replace(/\/+$/, '')}/${sub}`;
  return {
    apiVersion: CONFIG_V1,
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'ValidatingAdmissionPolicy',
        configuration: {
          apiVersion: CONFIG_V1,
          kind: 'ValidatingAdmissionPolicyConfiguration',
          staticManifestsDir: dir(STATIC_DIRS.validating),
        },
      },
      {
        name: 'MutatingAdmissionPolicy',
        configuration: {
          apiVersion: CONFIG_V1,
          kind: 'MutatingAdmissionPolicyConfiguration',
          staticManifestsDir: dir(STATIC_DIRS.mutating),
        },
      },
    ],
  };
}

/** Refuses a version that cannot load static manifests; for 1.36 (alpha) the note that names the gate. */
export function staticSupport(k8sVersion: string): string | undefined {
  const { minor } = apiVersionsFor(k8sVersion);
  if (minor < 36) {
    throw new AppError(
      'USAGE',
      `static admission manifests need Kubernetes 1.37 (on by default), or 1.36 with the feature gate ${STATIC_FEATURE_GATE}=true; got ${k8sVersion}: use API-based native policies or the webhook instead`,
    );
  }
  if (minor === 36) {
    return `Kubernetes 1.36 loads static admission manifests only with --feature-gates=${STATIC_FEATURE_GATE}=true on every kube-apiserver`;
  }
  return undefined;
}

function admissionObject(object: KubeObject): AdmissionObject {
  const { apiVersion, kind, metadata } = object as Partial<Record<string, unknown>>;
  const name = (metadata as { name?: unknown } | undefined)?.name;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string') {
    throw new AppError('INTERNAL', 'the native render produced an object without apiVersion, kind or metadata.name');
  }
  return object as unknown as AdmissionObject;
}

/** The same object under its static name; a binding follows its policy's. */
function asStatic(object: AdmissionObject): AdmissionObject {
  if (object.apiVersion !== ADMISSION_V1) {
    throw new AppError(
      'INTERNAL',
      `${object.kind} ${object.metadata.name} is ${object.apiVersion}: static manifests load ${ADMISSION_V1} only`,
    );
  }
  const spec = object.spec ?? {};
  if ('paramKind' in spec || 'paramRef' in spec) {
    throw new AppError(
      'INTERNAL',
      `${object.kind} ${object.metadata.name} uses params, which static manifests do not allow`,
    );
  }
  const renamed = { ...object, metadata: { ...object.metadata, name: staticName(object.metadata.name) } };
  return typeof spec.policyName === 'string'
    ? { ...renamed, spec: { ...spec, policyName: staticName(spec.policyName) } }
    : renamed;
}

export function staticName(name: string): string {
  return `${name}${STATIC_SUFFIX}`;
}

/**
 * Two policies over hookkeeper's API-based objects: anyone but break-glass is refused an UPDATE or DELETE; break-glass
 * is allowed with a warning and an audit annotation. Guarded by name, never by label (anyone may label an object), and
 * by the stored object's name in a match condition rather than resourceNames: a delete of the whole collection reaches
 * admission once per object with the request's empty name, which resourceNames never matches (seen on kube-apiserver).
 */
function selfProtection(policy: Policy, apiObjects: readonly AdmissionObject[], webhooks: readonly string[]): object[] {
  const namesOf = (kinds: readonly string[]) =>
    apiObjects.filter((o) => kinds.includes(o.kind)).map((o) => o.metadata.name);
  const guarded: [string, string, readonly string[]][] = [
    [ADMISSION_GROUP, 'validatingwebhookconfigurations', webhooks],
    [ADMISSION_GROUP, 'mutatingwebhookconfigurations', webhooks],
    [ADMISSION_GROUP, 'validatingadmissionpolicies', namesOf(['ValidatingAdmissionPolicy'])],
    [ADMISSION_GROUP, 'validatingadmissionpolicybindings', namesOf(['ValidatingAdmissionPolicyBinding'])],
    [ADMISSION_GROUP, 'mutatingadmissionpolicies', namesOf(['MutatingAdmissionPolicy'])],
    [ADMISSION_GROUP, 'mutatingadmissionpolicybindings', namesOf(['MutatingAdmissionPolicyBinding'])],
    ['apiextensions.k8s.io', 'customresourcedefinitions', [HOOKOWNERS_CRD]],
  ];
  const present = guarded.filter(([, , names]) => names.length > 0);
  const groups = [...new Set(present.map(([group]) => group))];
  const rules = groups.map((group) => ({
    apiGroups: [group],
    apiVersions: ['*'],
    resources: present.filter(([g]) => g === group).map(([, resource]) => resource),
    operations: ['UPDATE', 'DELETE'],
  }));
  const table = `{${present.map(([, resource, names]) => `${celString(resource)}: ${celStringSet(names)}`).join(', ')}}`;
  const isGuarded = `oldObject != null && request.resource.resource in ${table} && oldObject.metadata.name in ${table}[request.resource.resource]`;
  const what = `request.operation.lowerAscii() + ' ' + request.resource.resource + '/' + oldObject.metadata.name`;
  const denied = {
    name: 'hookkeeper-self-protection',
    who: `!(${breakGlassUser(policy)})`,
    actions: ['Deny'],
    validation: {
      expression: 'false',
      messageExpression: `'hookkeeper self-protection: ' + ${what} + ' is refused: it is part of hookkeeper\\'s protection of lifecycle hooks; only ' + ${celString(breakGlassText(policy))} + ' may change or delete it'`,
      reason: 'Forbidden',
    },
  };
  const breakGlass = {
    name: 'hookkeeper-self-protection-break-glass',
    who: breakGlassUser(policy),
    actions: ['Warn', 'Audit'],
    validation: {
      expression: 'false',
      messageExpression: `'break-glass: ' + request.userInfo.username + ' may ' + ${what} + ', part of hookkeeper\\'s protection of lifecycle hooks; audited'`,
    },
  };
  return staticPolicyPairs(
    [denied, breakGlass].map((p) => ({
      ...p,
      rules,
      conditions: [{ name: 'hookkeeper-object', expression: isGuarded }],
      variables: [],
      audit: { key: 'self-protection', valueExpression: `request.userInfo.username + ' ' + ${what}` },
    })),
  );
}

/**
 * The CRDs that carry hooks (hook-schema.ts): their DELETE, and an UPDATE that makes a version lose the hook fields,
 * are refused to anyone but break-glass, who is allowed with a warning and an audit annotation.
 */
function hookSchemaProtection(policy: Policy): object[] {
  const check = hookSchemaCheck();
  const rules = [
    {
      apiGroups: ['apiextensions.k8s.io'],
      apiVersions: ['*'],
      resources: ['customresourcedefinitions'],
      operations: ['UPDATE', 'DELETE'],
    },
  ];
  const common = {
    rules,
    conditions: [{ name: 'hook-carrying-crd', expression: check.guarded }],
    variables: check.variables,
    audit: {
      key: 'hook-schema',
      // An empty value omits the annotation: only a refused or break-glass change is annotated.
      valueExpression: `${check.keeps} ? '' : request.userInfo.username + ' ' + ${check.what}`,
    },
  };
  return staticPolicyPairs([
    {
      ...common,
      name: 'hookkeeper-hook-schema',
      who: `!(${breakGlassUser(policy)})`,
      actions: ['Deny'],
      validation: {
        expression: check.keeps,
        messageExpression: `'hookkeeper self-protection: ' + ${check.what} + ' is refused: ' + (${check.why}) + '; only ' + ${celString(breakGlassText(policy))} + ' may'`,
        reason: 'Forbidden',
      },
    },
    {
      ...common,
      name: 'hookkeeper-hook-schema-break-glass',
      who: breakGlassUser(policy),
      actions: ['Warn', 'Audit'],
      validation: {
        expression: check.keeps,
        messageExpression: `'break-glass: ' + request.userInfo.username + ' may ' + ${check.what} + ': ' + (${check.why}) + '; audited'`,
      },
    },
  ]);
}

interface StaticPolicy {
  name: string;
  who: string;
  actions: string[];
  rules: object[];
  conditions: { name: string; expression: string }[];
  variables: { name: string; expression: string }[];
  validation: object;
  audit: { key: string; valueExpression: string };
}

/** Each policy under its static name, failing closed, bound with its actions. */
function staticPolicyPairs(policies: readonly StaticPolicy[]): object[] {
  return policies.flatMap((p) => {
    const name = staticName(p.name);
    return [
      {
        apiVersion: ADMISSION_V1,
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name, labels: { ...LABELS } },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { matchPolicy: 'Equivalent', resourceRules: p.rules },
          matchConditions: [...p.conditions, { name: 'who', expression: p.who }],
          ...(p.variables.length > 0 ? { variables: p.variables } : {}),
          validations: [p.validation],
          auditAnnotations: [p.audit],
        },
      },
      {
        apiVersion: ADMISSION_V1,
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name, labels: { ...LABELS } },
        spec: { policyName: name, validationActions: p.actions },
      },
    ];
  });
}
