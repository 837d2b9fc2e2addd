// The floor for the webhook benchmark: the least an admission webhook can do over HTTPS. It reads the body,
// JSON.parses it and answers a fixed allowed AdmissionReview carrying the request's uid. GET answers "ok" (readiness).
// Run as its own process, like the webhook: node floor-server.js <cert> <key> <port>.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const [certFile, keyFile, port = '0'] = process.argv.slice(2);
if (!certFile || !keyFile) throw new Error('usage: floor-server <cert> <key> [port]');

const server = createServer(
  { cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.2' },
  (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
      res.end('ok');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request?: { uid?: string } };
      const text = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: review.request?.uid ?? '', allowed: true },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  },
);
// As the webhook does: the API server keeps connections open between calls.
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => server.close());
