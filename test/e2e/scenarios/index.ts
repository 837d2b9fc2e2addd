// Every scenario group, in the order a suite runs them (the outage last: it stops and restarts hookkeeper).
import type { Scenario } from '../harness/suite.js';
import { capiScenarios } from './capi.js';
import { defaultHookScenarios } from './default-hooks.js';
import { deletionScenarios } from './deletion.js';
import { dryRunScenarios } from './dry-run.js';
import { identityScenarios } from './identities.js';
import { machineSetScenarios } from './machineset.js';
import { namingScenarios } from './naming.js';
import { outageScenarios } from './outage.js';
import { ownerOnlyRemovalScenarios } from './owner-only-removal.js';

export const SCENARIOS: readonly Scenario[] = [
  identityScenarios,
  defaultHookScenarios,
  ownerOnlyRemovalScenarios,
  deletionScenarios,
  namingScenarios,
  dryRunScenarios,
  machineSetScenarios,
  capiScenarios,
  outageScenarios,
];
