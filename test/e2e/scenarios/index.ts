// Every scenario group, in the order a suite runs them (the outage last: it stops and restarts hookkeeper).
import type { Scenario } from '../harness/suite.js';
import { auditScenarios } from './audit.js';
import { capiScenarios } from './capi.js';
import { certRotationScenarios } from './cert-rotation.js';
import { childrenScenarios } from './children.js';
import { defaultHookScenarios } from './default-hooks.js';
import { deletionScenarios } from './deletion.js';
import { dryRunScenarios } from './dry-run.js';
import { faultScenarios } from './faults.js';
import { hookOwnersRbacScenarios } from './hook-owners-rbac.js';
import { hookOwnersWebhookScenarios } from './hook-owners-webhook.js';
import { identityScenarios } from './identities.js';
import { machineSetScenarios } from './machineset.js';
import { namingScenarios } from './naming.js';
import { nativeCelScenarios } from './native-cel.js';
import { outageScenarios } from './outage.js';
import { ownerOnlyRemovalScenarios } from './owner-only-removal.js';
import { reportScenarios } from './reports.js';
import { validateAgreementScenarios } from './validate-agreement.js';
import { validateDifferentialScenarios } from './validate-differential.js';
import { webhookConfigScenarios } from './webhook-config.js';

export interface ScenarioOptions {
  /**
   * Also the groups that do not depend on the Machine CRDs (child resources, webhook-config/ manifests): one
   * suite runs them, the one that always runs.
   */
  crdIndependent: boolean;
}

export function scenarios(options: ScenarioOptions): Scenario[] {
  return [
    identityScenarios,
    defaultHookScenarios,
    ownerOnlyRemovalScenarios,
    deletionScenarios,
    namingScenarios,
    dryRunScenarios,
    machineSetScenarios,
    capiScenarios,
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
        ]
      : []),
    faultScenarios,
    outageScenarios,
  ];
}
