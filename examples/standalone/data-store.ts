/**
 * Opening the lowdb store in `DATA_DIR/records`, as the server and the offline admin commands
 * do, with what each refusal means said in one line, never a stack.
 */

import {
  createLowdbStore,
  JournalCorruptError,
  type LowdbStore,
  SnapshotCorruptError,
  StoreLockedError,
} from "formwork/adapters/lowdb";
import { adminProgram } from "./admin-commands.ts";

/** Where the store's records live under a data folder. */
export function recordsFolder(dataDir: string): string {
  return `${dataDir}/records`;
}

/**
 * Opens the store of `dataDir` (taking its lock). A refusal the operator can act on (another
 * process holds the folder, a damaged journal or snapshot file) is printed on stderr as one
 * line, ending with `advice` for a lock; other errors are thrown.
 * @returns the open store, or `undefined` after printing a refusal
 */
export async function openDataStore(dataDir: string, advice = ""): Promise<LowdbStore | undefined> {
  const store = createLowdbStore({ directory: recordsFolder(dataDir) });
  try {
    await store.open();
    return store;
  } catch (error) {
    console.error(refusalOf(error, dataDir, advice));
    return undefined;
  }
}

/**
 * The line that explains `error`, thrown by opening or locking the store of `dataDir`.
 * @throws `error` itself when it is no refusal the operator can act on
 */
export function refusalOf(error: unknown, dataDir: string, advice = ""): string {
  if (error instanceof StoreLockedError) {
    return `DATA_DIR ${dataDir} is in use by another Formwork process (pid ${error.pid})${advice}`;
  }
  // It names the file, the byte and what to do: the whole story, with no stack to read.
  if (error instanceof JournalCorruptError) return error.message;
  if (error instanceof SnapshotCorruptError) {
    // The journal's replay needs a damaged snapshot file.
    return `${error.message}. Restore the folder from a backup, or run ${adminProgram.name} repair: it moves the file aside and says which records it held`;
  }
  throw error;
}
