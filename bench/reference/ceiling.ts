import { createServer } from 'node:http';

/** The framework-free ceiling: node:http answering one fixed JSON for every request. */
const body = JSON.stringify({ ok: true });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
