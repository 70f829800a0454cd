import type { Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { StartupError } from '../errors/startup-error.ts';

/**
 * Connections the kernel may hold for us before we accept them (it caps this at
 * net.core.somaxconn). Node's 511 overflows when thousands of stream viewers
 * reconnect at once — after a deploy, say — and each refused SYN is retried
 * only after 1, 3, 7, 15… seconds.
 */
const LISTEN_BACKLOG = 4096;

/** Why the address cannot be listened on, as one start-up line; undefined when it is no such reason. */
function refusal(error: NodeJS.ErrnoException, host: string, port: number): StartupError | undefined {
  if (error.code === 'EADDRINUSE') return new StartupError(`Cannot listen on ${host}:${port}: the port is in use (choose another with PORT)`);
  if (error.code === 'EACCES') return new StartupError(`Cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges)`);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return new StartupError(`Cannot listen on ${host}:${port}: HOST is not an address of this machine`);
  return undefined;
}

function listenOn(server: Server | ReturnType<typeof createTcpServer>, port: number, host: string, backlog?: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(refusal(error, host, port) ?? error);
    server.once('error', refused);
    server.listen({ port, host, ...(backlog === undefined ? {} : { backlog }) }, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

/** The HTTP server listens; a port in use, a privileged port or a foreign HOST is a one-line StartupError. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return listenOn(server, port, host, LISTEN_BACKLOG);
}

/**
 * Listens on the address for a moment and lets go, so that a port in use is
 * reported at once — before the database opens, which for the embedded one
 * takes seconds and locks its directory. The real listen comes after start-up
 * and reports the same way should another process take the port meanwhile.
 * Port 0 asks for any free port: nothing to check.
 */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createTcpServer();
  await listenOn(probe, port, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
