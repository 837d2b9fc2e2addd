// Work counted without a clock, for tests that prove a cost linear: while `run` runs, every array method,
// array/Map/Set iteration and Object.keys/entries/values counts the elements it may visit, and every keyed lookup
// (Object.hasOwn, Map/Set get/has/set/add) counts one. The count is exact and the same on any machine.
type Method = (...args: unknown[]) => unknown;

/** Runs `run` with the counters in place and returns how many elements and lookups it used. */
export function visits(run: () => void): number {
  let count = 0;
  const restore: Array<() => void> = [];
  const wrap = (target: object, key: PropertyKey, cost: (self: unknown, result: unknown) => number): void => {
    const original = Reflect.get(target, key) as Method;
    Reflect.set(target, key, function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      count += cost(this, result);
      return result;
    });
    restore.push(() => Reflect.set(target, key, original));
  };
  const length = (self: unknown): number => (self as { length: number }).length;
  const size = (self: unknown): number => (self as { size: number }).size;
  const one = (): number => 1;
  for (const m of [
    'includes',
    'indexOf',
    'lastIndexOf',
    'find',
    'findIndex',
    'findLast',
    'findLastIndex',
    'some',
    'every',
    'filter',
    'map',
    'forEach',
    'reduce',
    'flatMap',
    'slice',
    'join',
    'concat',
    Symbol.iterator,
  ] as const)
    wrap(Array.prototype, m, length);
  for (const proto of [Map.prototype, Set.prototype]) {
    for (const m of ['forEach', 'keys', 'values', 'entries', Symbol.iterator] as const) wrap(proto, m, size);
    for (const m of ['has', 'get', 'set', 'add'] as const) if (m in proto) wrap(proto, m, one);
  }
  for (const m of ['keys', 'entries', 'values'] as const)
    wrap(Object, m, (_self, result) => (result as unknown[]).length);
  wrap(Object, 'hasOwn', one);
  try {
    run();
  } finally {
    for (const undo of restore.reverse()) undo();
  }
  return count;
}
