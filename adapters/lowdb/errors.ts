import { StoreUnavailableError } from "formwork/ports";

/** An error of this adapter, naming it so that logs point at the right place. */
export function lowdbError(message: string, cause?: unknown): Error {
  return new Error(`lowdb store: ${message}`, cause === undefined ? undefined : { cause });
}

/**
 * Thrown at start when a journal file holds an entry that fails its checksum (or does not
 * parse) with intact entries after it: damage on the disk, not a write torn by a crash,
 * which can only be a file's last bytes. The store does not start and changes no file.
 */
export class JournalCorruptError extends Error {
  /** The journal file's path. */
  readonly file: string;
  /** Where the bad entry starts, in bytes from the start of the file. */
  readonly offset: number;

  constructor(file: string, offset: number) {
    super(
      `${file} is corrupt at byte ${offset}: the entry there fails its checksum and intact ` +
        "entries follow it, so it is no write torn by a crash; the store did not start and " +
        "changed nothing. Restore the folder from a backup, or run npm run admin -- repair " +
        "(the standalone server's repair: it keeps a copy of the file, cuts it at that byte " +
        "and says which entries it dropped); elsewhere keep a copy and cut it yourself " +
        `(truncate -s ${offset} ${shellQuoted(file)}).`,
    );
    this.name = "JournalCorruptError";
    this.file = file;
    this.offset = offset;
  }
}

/**
 * Thrown when a snapshot file (a segment or a manifest) is damaged: it fails its checksum,
 * is cut short, or does not parse. The store never serves what it holds: the call fails, a
 * `StoreUnavailableError`, so the service answers 503 `service_unavailable`, and the store's
 * `warn` is told the file. Only that partition is affected; the file is left as it is.
 */
export class SnapshotCorruptError extends StoreUnavailableError {
  /** The damaged file's path. */
  readonly file: string;
  /** What is wrong with it, e.g. `its checksum does not match its content`. */
  readonly reason: string;

  constructor(file: string, reason: string, cause?: unknown) {
    super(`lowdb store: cannot read ${file}: ${reason}`, cause === undefined ? {} : { cause });
    this.name = "SnapshotCorruptError";
    this.file = file;
    this.reason = reason;
  }
}

function shellQuoted(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
