// The differential fuzzer at full size (test/native/differential/fuzz.ts), `npm run test:fuzz`: 10,000 generated
// reviews for each of four fixed seeds and one new seed per run (printed; HOOKKEEPER_FUZZ_SEED replays it), at least
// 50,000 in all, and six large-stage reviews per seed. The unit suite runs the same groups small, fixed seeds only.
import { fuzzBothEngines } from '../native/differential/fuzz.js';

fuzzBothEngines({ runs: 10_000, largeRuns: 6, newSeed: true });
