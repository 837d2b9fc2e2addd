// The floor for `hookkeeper audit`: a bare paginated list of Machines (limit/continue, the audit's page size),
// each page JSON-parsed and dropped. Run as its own process: node list-floor.mjs <server> <ca file> <token file> <limit>.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

const [server, caFile, tokenFile, limit = '500'] = process.argv.slice(2);
if (!server || !caFile || !tokenFile) throw new Error('usage: list-floor <server> <ca file> <token file> [limit]');
const agent = new Agent({ keepAlive: true, ca: readFileSync(caFile) });
const token = readFileSync(tokenFile, 'utf8').trim();

function page(cont: string | undefined): Promise<{ items: unknown[]; metadata?: { continue?: string } }> {
  const url = new URL(`${server}/apis/machine.openshift.io/v1beta1/machines`);
  url.searchParams.set('limit', limit);
  if (cont) url.searchParams.set('continue', cont);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: unknown[] });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let items = 0;
let cont: string | undefined;
do {
  const p = await page(cont);
  items += p.items.length;
  cont = p.metadata?.continue || undefined;
} while (cont);
agent.destroy();
process.stdout.write(`${JSON.stringify({ items })}\n`);
