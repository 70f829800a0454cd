import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP pass-through the test can cut and restore: a database outage on demand. */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** While set, what the server answers is held back: a server that has gone quiet, not away. */
  private silent = false;
  private held: (() => void)[] = [];
  /** Set while the next new connection's first statement is to stop the proxy. */
  private stopAtFirstStatement: (() => void) | undefined;
  port = 0;
  /**
   * Times a client spoke after the server had (or for the first time), over
   * every connection: the client's round trips. Statements pipelined in one
   * write count once; each wait for an answer before the next statement, once more.
   */
  clientTurns = 0;

  /** The server's answers stop arriving (connections stay open). */
  goQuiet(): void {
    this.silent = true;
  }

  /** The held answers arrive, and the next ones as they come. */
  speakAgain(): void {
    this.silent = false;
    for (const release of this.held.splice(0)) release();
  }

  /**
   * The next new connection gets through its startup and is cut as its client
   * sends the first statement (with trust auth, the first message after the
   * startup packet); the proxy stops with it, so reconnecting is refused: the
   * server goes away while a connection is being set up. Resolves once stopped.
   */
  stopAtNextFirstStatement(): Promise<void> {
    return new Promise((resolve) => {
      this.stopAtFirstStatement = () => void this.stop().then(resolve);
    });
  }

  /** Drops the open connections and keeps accepting new ones. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Resets the open connections (TCP RST): the client's next read fails with ECONNRESET, as when a pooler closes a connection with unread statements. */
  resetConnections(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      let chunksFromClient = 0;
      let serverSpokeLast = true;
      client.on('data', (chunk: Buffer) => {
        if (serverSpokeLast) this.clientTurns++;
        serverSpokeLast = false;
        if (chunksFromClient++ === 1 && this.stopAtFirstStatement) {
          const stop = this.stopAtFirstStatement;
          this.stopAtFirstStatement = undefined;
          stop();
          return;
        }
        upstream.write(chunk);
      });
      client.on('end', () => upstream.end());
      upstream.on('data', (chunk: Buffer) => {
        serverSpokeLast = true;
        if (this.silent) this.held.push(() => client.write(chunk));
        else client.write(chunk);
      });
      upstream.on('end', () => client.end());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Refuses new connections and drops the open ones, as a stopped server would. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
