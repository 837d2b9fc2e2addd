// Every scenario group, in the order a suite runs them: the Machine groups in each admission mode, then (webhook mode)
// the groups about the webhook itself, the outage last (it stops and restarts hookkeeper).
import type { AdmissionMode } from '../harness/admission-modes.js';
import type { SuitePlan } from '../harness/suite.js';
import { auditScenarios } from './audit.js';
import { bothOutageScenarios } from './both-outage.js';
import { capiClusterScenarios } from './capi-cluster.js';
import { capiScenarios } from './capi.js';
import { capiProfileScenarios } from './capi-profile.js';
import { celCostScenarios, findSizeLimit } from './cel-cost.js';
import { capiCelCostScenarios } from './cel-cost-capi.js';
import { celShimScenarios } from './cel-shims.js';
import { certRotationScenarios } from './cert-rotation.js';
import { childrenScenarios } from './children.js';
import { controllerFinalizerScenarios } from './controller-finalizer.js';
import { corpusComparison, corpusScenarios, corpusSetup } from './corpus.js';
import { defaultHookScenarios } from './default-hooks.js';
import { deletionScenarios } from './deletion.js';
import { dryRunScenarios } from './dry-run.js';
import { faultScenarios } from './faults.js';
import { hookCountScenarios } from './hook-count.js';
import { hookOwnersRbacScenarios } from './hook-owners-rbac.js';
import { hookOwnersWebhookScenarios } from './hook-owners-webhook.js';
import { identityScenarios } from './identities.js';
import { machineSetScenarios } from './machineset.js';
import { namespaceScenarios } from './namespaces.js';
import { namingScenarios } from './naming.js';
import { nativeCelScenarios } from './native-cel.js';
import { nativeKnobScenarios } from './native-knobs.js';
import { outageScenarios } from './outage.js';
import { ownerOnlyRemovalScenarios } from './owner-only-removal.js';
import { quorumScenarios } from './quorum.js';
import { reportScenarios } from './reports.js';
import { strippedDefaultHookScenarios } from './stripped-default-hook.js';
import { templateRemovalScenarios } from './template-removal.js';
import { requestConditionScenarios } from './request-conditions.js';
import { ruleCaseScenarios, ruleCasesSetup } from './rule-cases.js';
import { validateAgreementScenarios } from './validate-agreement.js';
import { validateDifferentialScenarios } from './validate-differential.js';
import { webhookConfigScenarios } from './webhook-config.js';
import { wildcardGrantScenarios } from './wildcard-grants.js';

export interface ScenarioOptions {
  /**
   * Also the groups that do not depend on the Machine CRDs (child resources, webhook-config/ manifests): one
   * suite runs them, the one that always runs.
   */
  crdIndependent: boolean;
  /** The admission modes the Machine groups run in (webhook first). */
  modes: readonly AdmissionMode[];
}

export function scenarios(options: ScenarioOptions): SuitePlan {
  return {
    modes: options.modes,
    // Every decision in these must come out the same through the webhook, the native policies, both, or the static
    // manifests.
    perMode: [
      identityScenarios,
      defaultHookScenarios,
      strippedDefaultHookScenarios,
      hookCountScenarios,
      namespaceScenarios,
      ownerOnlyRemovalScenarios,
      deletionScenarios,
      controllerFinalizerScenarios,
      namingScenarios,
      dryRunScenarios,
      machineSetScenarios,
      templateRemovalScenarios,
      capiScenarios,
      // Clusters' upgrade hooks: upstream's Cluster CRD is in that set only.
      ...(options.crdIndependent ? [] : [capiClusterScenarios]),
      bothOutageScenarios,
      // The corpus runs in both suites (upstream's CRDs store what users' clusters store); the cost proof once,
      // in the suite that always runs.
      corpusScenarios,
      // The rules' own cases, in both suites too.
      ruleCaseScenarios,
      ...(options.crdIndependent ? [celCostScenarios] : []),
    ],
    ...(options.crdIndependent
      ? {
          bare: [findSizeLimit, corpusSetup, ruleCasesSetup],
          afterModes: [corpusComparison, nativeKnobScenarios, wildcardGrantScenarios],
        }
      : // The Cluster API profile, and its cost proof at the schema's bounds, against upstream's Cluster API Machine
        // CRD; quorum protection against upstream's Machine CRDs, with a hookkeeper that lists them.
        {
          bare: [corpusSetup, ruleCasesSetup],
          afterModes: [corpusComparison, capiProfileScenarios, capiCelCostScenarios, quorumScenarios],
        }),
    webhookOnly: [
      requestConditionScenarios,
      validateAgreementScenarios,
      auditScenarios,
      reportScenarios,
      ...(options.crdIndependent
        ? [
            childrenScenarios,
            webhookConfigScenarios,
            certRotationScenarios,
            validateDifferentialScenarios,
            hookOwnersRbacScenarios,
            hookOwnersWebhookScenarios,
            nativeCelScenarios,
            celShimScenarios,
          ]
        : []),
      faultScenarios,
      outageScenarios,
    ],
  };
}
