/**
 * Run inside a test's network namespace (see network-namespace.ts): sends
 * the batch given as its one argument, one request at a time, each from its
 * own source address on a connection of its own, and writes the answers to
 * stdout as JSON.
 */
import { request } from 'node:http';
import type { NamespacedBatch, NamespacedRequest, NamespacedResponse } from './network-namespace.ts';

function send(host: string, port: number, { from, method = 'GET', path, headers = {}, body }: NamespacedRequest): Promise<NamespacedResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host, port, family: 6, localAddress: from, method, path, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const answered: Record<string, string> = {};
        for (const [header, value] of Object.entries(incoming.headers)) if (typeof value === 'string') answered[header] = value;
        resolve({ status: incoming.statusCode ?? 0, headers: answered, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const { host, port, requests } = JSON.parse(process.argv[2] ?? '') as NamespacedBatch;
const answers: NamespacedResponse[] = [];
for (const next of requests) answers.push(await send(host, port, next));
process.stdout.write(JSON.stringify(answers));
