// The differential fuzzer (test/native/differential/fuzz.ts) small, on every unit run: the fixed seeds only, so the
// unit suite is the same on every run; `npm run test:fuzz` (test/fuzz/) runs it at full size with a new seed.
import { fuzzBothEngines } from './differential/fuzz.js';

fuzzBothEngines({ runs: 250, largeRuns: 1, newSeed: false });
