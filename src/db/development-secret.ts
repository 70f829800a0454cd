import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../errors/startup-error.ts';

/** Beside the embedded database's own files, as the lock is. */
const SECRET_FILE = 'lab-api-jwt-secret';

export interface DevelopmentSecret {
  secret: string;
  /** The file it is kept in; undefined for memory://, where it lives and dies with the process. */
  keptIn: string | undefined;
}

/**
 * docs/spec/DECISIONS.md, "Signing secret": with neither JWT_SECRET nor DATABASE_URL, tokens
 * are signed with a secret nobody else knows — 32 random bytes, made at the
 * first start and kept in the data directory in a file only its owner may
 * read, so tokens survive a restart; with memory://, made anew by each
 * process. A secret written in the source would let anyone who read it sign
 * any scope for any subject on every default set-up.
 */
export function developmentSecret(dataDir: string): DevelopmentSecret {
  const made = () => randomBytes(32).toString('base64url');
  if (dataDir.startsWith('memory://')) return { secret: made(), keptIn: undefined };
  const path = join(dataDir, SECRET_FILE);
  try {
    // Created exclusively, owner read/write only (the umask can only narrow it).
    const fd = openSync(path, 'wx', 0o600);
    const secret = made();
    try {
      writeSync(fd, `${secret}\n`);
    } finally {
      closeSync(fd);
    }
    return { secret, keptIn: path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 32) {
    throw new StartupError(`The development JWT secret in ${path} is shorter than 32 characters: delete the file to have a new one made, or set JWT_SECRET`);
  }
  return { secret, keptIn: path };
}
