import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

const NGINX = '/usr/sbin/nginx';
/** The configuration docs/DEPLOY.md gives operators. */
const SITE = new URL('../../docs/deploy/nginx.conf', import.meta.url);

export const nginxInstalled = existsSync(NGINX);

export interface Nginx {
  url: string;
  stop(): Promise<void>;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Debian's nginx with the deployment guide's site configuration, its
 * upstream servers replaced by `upstreams` and its listener by a free port,
 * running in the foreground from a temporary prefix.
 */
export async function startNginx(upstreams: string[]): Promise<Nginx> {
  const prefix = await mkdtemp(join(tmpdir(), 'lab-api-nginx-'));
  const port = await freePort();
  const site = (await readFile(SITE, 'utf8'))
    .replace(/^(\s*)server 127\.0\.0\.1:300\d;\n/gm, (line, indent: string) => (line.includes(':3001') ? upstreams.map((upstream) => `${indent}server ${upstream};\n`).join('') : ''))
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`);
  if (!site.includes(upstreams[0]!)) throw new Error('docs/deploy/nginx.conf no longer has the upstream lines this test replaces');
  await writeFile(join(prefix, 'site.conf'), site);
  await writeFile(
    join(prefix, 'nginx.conf'),
    `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  include ${prefix}/site.conf;
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  for (let attempt = 0; !(await accepting(port)); attempt++) {
    if (child.exitCode !== null || attempt > 200) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGQUIT');
        await exited;
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
