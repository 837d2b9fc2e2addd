// The floor for `hookkeeper validate`: read the same files and parse every YAML document with the `yaml` package,
// the one parser validate uses (it was js-yaml's until validate read manifests as kubectl does, with `yaml`), into
// values, nothing else: no kubectl scalar rules (the core schema's are as cheap or cheaper), no checks, no lines
// kept. Run as its own process: node parse-floor.mjs <dir>.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: parse-floor <dir>');
let documents = 0;
for (const name of readdirSync(dir).sort()) {
  const docs = parseAllDocuments(readFileSync(join(dir, name), 'utf8'), { merge: true });
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.toJS() !== null) documents++;
  }
}
process.stdout.write(`${JSON.stringify({ documents })}\n`);
