// Preloaded (NODE_OPTIONS="--expose-gc --import=<this file>") by .ci/run's pass over the unit and hardening tests
// under forced garbage collection: a full collection every 20 ms in each test file's process (a
// tier run in process, scripts/test-tier.ts: each of its *.test.mjs processes), so whatever lives only
// while nothing collects it (a timer held weakly, a listener on a collected signal) fails there every time rather
// than once in a while. Processes the tests start (serve, the CLI) are left alone: the code they run is run in
// process by other tests, and collecting while each of them compiles would multiply the pass's time. Plain
// JavaScript, so it loads before tsx; without --expose-gc it does nothing.
const { gc } = globalThis;
if (typeof gc === 'function' && /\.test\.m?[jt]s$/.test(process.argv[1] ?? '')) setInterval(gc, 20).unref();
