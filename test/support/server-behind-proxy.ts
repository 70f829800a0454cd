import { TcpProxy } from './tcp-proxy.ts';
import { createTestDatabase } from './test-database.ts';
import { startTestServer, type TestServer } from './test-server.ts';

export interface ServerBehindProxy {
  server: TestServer;
  /** Between the service and PostgreSQL: stop() is an outage, start() the end of it. */
  proxy: TcpProxy;
  stop(): Promise<void>;
}

/** A test server on a fresh PostgreSQL database that it reaches through a proxy the test can cut (PostgreSQL only). */
export async function startServerBehindProxy(env: Record<string, string> = {}): Promise<ServerBehindProxy> {
  const database = await createTestDatabase();
  const direct = new URL(database.env.DATABASE_URL!);
  const proxy = new TcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  await proxy.start();
  const viaProxy = new URL(direct);
  viaProxy.port = String(proxy.port);
  const server = await startTestServer({ database: { env: { DATABASE_URL: viaProxy.toString() }, drop: async () => {} }, env });
  return {
    server,
    proxy,
    stop: async () => {
      await server.stop();
      await proxy.stop();
      await database.drop();
    },
  };
}
