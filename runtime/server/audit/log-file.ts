// The file behind --audit-log-path, rotated as kube-apiserver's lumberjack.Logger rotates it:
// past --audit-log-maxsize megabytes the file is renamed to <name>-<UTC timestamp>.<ext> and a
// new one started; backups past --audit-log-maxbackup, or older than --audit-log-maxage days,
// are removed. Size 0 never rotates, as kube opens the file plainly then.

import { mkdirSync, openSync, closeSync } from 'node:fs';
import { open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

const MEGABYTE = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RotationOptions {
  maxSizeMB: number;
  maxBackups: number;
  maxAgeDays: number;
}

/** kube's ensureLogFile: the directory (0700) and the file (0600) exist before serving starts. */
export function ensureLogFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a+', 0o600));
  } catch (err) {
    throw new Error(`ensureLogFile: ${(err as Error).message}`);
  }
}

/** lumberjack's backup time format, 2006-01-02T15-04-05.000, in UTC. */
function backupTimestamp(date: Date): string {
  return date.toISOString().slice(0, 23).replace(/:/g, '-');
}

function parseBackupTimestamp(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

export class RotatingLogFile {
  private handle?: FileHandle;
  private size = 0;
  private readonly maxBytes: number;
  private readonly prefix: string;
  private readonly ext: string;

  constructor(
    readonly path: string,
    private readonly rotation: RotationOptions,
  ) {
    this.maxBytes = rotation.maxSizeMB * MEGABYTE;
    this.ext = extname(path);
    this.prefix = `${basename(path, this.ext)}-`;
  }

  /** Appends whole lines; a failure (a full disk, a path gone) rejects, and the next write opens the file again. */
  async write(data: string): Promise<void> {
    const bytes = Buffer.byteLength(data);
    if (this.maxBytes > 0 && bytes > this.maxBytes) {
      throw new Error(`write length ${bytes} exceeds maximum file size ${this.maxBytes}`);
    }
    try {
      if (!this.handle) await this.openExisting();
      if (this.maxBytes > 0 && this.size + bytes > this.maxBytes) await this.rotate();
      await this.handle!.appendFile(data);
      this.size += bytes;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => {});
  }

  private async openExisting(): Promise<void> {
    this.handle = await open(this.path, 'a', 0o600);
    this.size = (await this.handle.stat()).size;
  }

  private async rotate(): Promise<void> {
    await this.close();
    const backup = join(dirname(this.path), `${this.prefix}${backupTimestamp(new Date())}${this.ext}`);
    await rename(this.path, backup).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    this.handle = await open(this.path, 'a', 0o600);
    this.size = 0;
    await this.removeOldBackups();
  }

  /** lumberjack's mill: newest backups first; drop those past the count, then those past the age. */
  private async removeOldBackups(): Promise<void> {
    if (this.rotation.maxBackups <= 0 && this.rotation.maxAgeDays <= 0) return;
    const dir = dirname(this.path);
    const backups: { name: string; time: number }[] = [];
    for (const name of await readdir(dir)) {
      if (!name.startsWith(this.prefix) || !name.endsWith(this.ext)) continue;
      const time = parseBackupTimestamp(name.slice(this.prefix.length, name.length - this.ext.length));
      if (time !== undefined) backups.push({ name, time });
    }
    backups.sort((a, b) => b.time - a.time);
    let keep = backups;
    const remove: string[] = [];
    if (this.rotation.maxBackups > 0 && keep.length > this.rotation.maxBackups) {
      remove.push(...keep.slice(this.rotation.maxBackups).map((b) => b.name));
      keep = keep.slice(0, this.rotation.maxBackups);
    }
    if (this.rotation.maxAgeDays > 0) {
      const cutoff = Date.now() - this.rotation.maxAgeDays * DAY_MS;
      remove.push(...keep.filter((b) => b.time < cutoff).map((b) => b.name));
    }
    await Promise.all(remove.map((name) => unlink(join(dir, name)).catch(() => {})));
  }
}

