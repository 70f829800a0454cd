import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../errors/startup-error.ts';

/** Beside PostgreSQL's own files, as its postmaster.pid is. */
const LOCK_FILE = 'lab-api.lock';

export interface DataDirLock {
  release(): void;
}

/**
 * One process at a time per embedded database (docs/spec/DECISIONS.md, "Operations"): two
 * PGlite instances on one directory each work on their own copy and one loses
 * its writes. The lock is a file holding the owner's process id, created
 * exclusively; a file whose process is gone (killed, crashed, a zombie not
 * yet reaped) is taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return { release: () => releaseIfOurs(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(path);
    if (holder !== undefined && holder !== process.pid && isRunning(holder)) {
      throw new StartupError(
        `PGLITE_DATA_DIR ${dataDir} is in use by process ${holder}: only one process at a time may open an embedded database`,
      );
    }
    // Left by a process that is gone: take it over, unless another starter just did.
    if (holderOf(path) === holder) rmSync(path, { force: true });
  }
  throw new StartupError(`PGLITE_DATA_DIR ${dataDir} is being opened by another process at the same moment: start one process at a time`);
}

function holderOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process still runs. A zombie does not: it was killed (kill -9,
 * a crash) and its parent has not reaped it yet, so its id still answers
 * signals though nothing of it holds the directory. A supervisor restarting
 * at once can come before the reaping.
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !hasExited(pid);
}

/**
 * Linux's /proc/<pid>/stat: the state is the first field after the command
 * name, which is in parentheses and may itself hold spaces and parentheses.
 * Z is a zombie, X a process being removed. Without /proc nothing is known.
 */
function hasExited(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 1).trimStart()[0];
  return state === 'Z' || state === 'X';
}

function releaseIfOurs(path: string): void {
  if (holderOf(path) === process.pid) rmSync(path, { force: true });
}
