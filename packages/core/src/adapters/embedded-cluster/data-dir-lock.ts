import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { PorticoError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/**
 * One process at a time per data dir: the embedded cluster keeps the whole state in memory and appends to one
 * journal, so a second process on the same folder (a second server, `admin reset-password` beside a running
 * server) would write behind the first one's back and each would overwrite the other's snapshot.
 *
 * The lock is a file created exclusively in the data dir, naming its process. A lock whose process is gone (a
 * kill -9, a power cut) is taken over; so is one this very process holds (an embedded cluster reopened in
 * process without being closed, as tests simulate a crash). A process on another host cannot be checked: its
 * lock is taken over with a warning, as a container recreated on a bind-mounted data dir gets a new hostname.
 */
export const LOCK_FILE = 'portico.lock';

export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
  /** The command line, for whoever reads the file: which server, or the admin command. */
  command?: string;
  /** Tells this holder from a later one of the same process, so a stale handle never removes a newer lock. */
  id: string;
}

export interface DataDirLock {
  /** Removes the lock file if it still names this holder; never fails. */
  release(): Promise<void>;
}

/** Locks held by this process, removed on exit if the process ends without closing its clusters. */
const held = new Map<string, { file: string; id: string }>();
let exitHookInstalled = false;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isRecord(value) || !Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return undefined;
    return {
      pid: value.pid as number,
      hostname: String(value.hostname ?? ''),
      startedAt: String(value.startedAt ?? 'at an unknown time'),
      command: typeof value.command === 'string' ? value.command : undefined,
      id: String(value.id ?? ''),
    };
  } catch {
    return undefined;
  }
}

/** Signal 0 only checks: EPERM means the process exists but belongs to another user. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The holder named by the lock file: 'gone' when there is no file, undefined when it cannot be read as a holder.
 * A file just created by another process may not have its content yet: an unreadable one is read again a few
 * times before it counts as left by a crash.
 */
async function readHolder(file: string): Promise<LockHolder | 'gone' | undefined> {
  for (let attempt = 0; ; attempt++) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
      throw err;
    }
    const holder = parseHolder(text);
    if (holder || attempt >= 5) return holder;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const dataDirInUse = (dataDir: string, holder: LockHolder) =>
  new PorticoError(
    'CONFLICT',
    `data dir ${dataDir} is in use by another Portico process (pid ${holder.pid}, started ${holder.startedAt}); ` +
      `stop it, or give this server its own PORTICO_DATA_DIR. If no Portico process is running, delete ${path.join(dataDir, LOCK_FILE)}.`,
    { dataDir, pid: holder.pid, hostname: holder.hostname, startedAt: holder.startedAt },
  );

function releaseAllAtExit(): void {
  for (const { file, id } of held.values()) {
    try {
      if (parseHolder(readFileSync(file, 'utf8'))?.id === id) unlinkSync(file);
    } catch {
      /* best effort: the next start takes a lock of a dead process over */
    }
  }
  held.clear();
}

/**
 * Takes the lock of `dataDir` (created if missing) for this process, or fails with a CONFLICT naming the process
 * that holds it. A refused lock changes nothing in the folder.
 */
export async function lockDataDir(dataDir: string, logger: Logger): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const me = hostname();
  const mine: LockHolder = { pid: process.pid, hostname: me, startedAt: new Date().toISOString(), command: process.argv.slice(1).join(' '), id: randomUUID() };

  for (let attempt = 1; ; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(mine)}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      // Another process taking a stale lock over at the same moment: read again who holds it now.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw err;
    }
    const holder = await readHolder(file);
    if (holder === 'gone') continue;
    if (holder && holder.hostname === me && holder.pid !== process.pid && isRunning(holder.pid)) throw dataDirInUse(dataDir, holder);
    if (holder && holder.hostname !== me) {
      logger.warn({ dataDir, holder }, `taking over the lock of data dir ${dataDir} held by pid ${holder.pid} on host ${holder.hostname}, which cannot be checked from here`);
    } else {
      const why = !holder ? 'unreadable' : holder.pid === process.pid ? 'left by this process' : 'left by a process that is no longer running';
      logger.info({ dataDir, holder: holder ?? null }, `taking over the lock of data dir ${dataDir} (${why})`);
    }
    await rm(file, { force: true });
  }

  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', releaseAllAtExit);
  }
  held.set(mine.id, { file, id: mine.id });
  return {
    async release() {
      if (!held.delete(mine.id)) return;
      const holder = await readHolder(file).catch(() => undefined);
      if (holder !== 'gone' && holder?.id === mine.id) await rm(file, { force: true }).catch(() => undefined);
    },
  };
}
