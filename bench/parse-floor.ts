// The floor for `hookkeeper validate`: read the same files and parse every YAML document with js-yaml and the
// schema validate itself uses for values (CORE: timestamps stay strings; the default schema is ~10% slower),
// nothing else. Run as its own process: node parse-floor.mjs <dir>.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsyaml from 'js-yaml';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: parse-floor <dir>');
let documents = 0;
for (const name of readdirSync(dir).sort()) {
  jsyaml.loadAll(
    readFileSync(join(dir, name), 'utf8'),
    () => {
      documents++;
    },
    { schema: jsyaml.CORE_SCHEMA },
  );
}
process.stdout.write(`${JSON.stringify({ documents })}\n`);
