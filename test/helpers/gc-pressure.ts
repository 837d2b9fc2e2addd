// Preloaded (node --expose-gc --import) by .ci/run's forced-GC pass over the unit and hardening tests: a full garbage
// collection every few milliseconds, so anything that lives only while nothing collects it (a timer held weakly, a
// listener on a collected signal) fails here rather than once in a while. Without --expose-gc it does nothing.
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) setInterval(gc, 5).unref();
