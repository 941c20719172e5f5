/**
 * `POST /api/admin/backup`: the standalone server streams a consistent copy of its data
 * folder as a tar archive while it goes on serving (docs/design.md §23). It lies beside the
 * service, not in it: the library's admin API knows no storage adapter. The admin secret is
 * checked by the service itself (one guard against guessing for every admin route).
 */

import { rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FormService } from "formwork";
import type { LowdbStore } from "formwork/adapters/lowdb";
import { create } from "tar";
import { type Staged, stageBackup } from "./backup-staging.ts";

/** The path of the backup route. */
export const BACKUP_PATH = "/api/admin/backup";

/** Headers of a backup's answer that announce what the archive holds, for progress. */
export const BACKUP_FILES_HEADER = "x-backup-files";
export const BACKUP_BYTES_HEADER = "x-backup-bytes";

/** What the backup route reads and writes. */
export interface BackupSource {
  dataDir: string;
  store: LowdbStore;
  service: FormService;
  /** Told about a backup that failed after its answer began (the client sees a cut archive). */
  warn: (message: string) => void;
}

/**
 * The backup route, one backup at a time.
 * @returns a request handler that answers the backup route and returns `true`, or returns
 *   `false` for every other request
 */
export function backupRoute(source: BackupSource) {
  let running = false;
  return (incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const path = (incoming.url ?? "").split("?")[0];
    if (path !== BACKUP_PATH) return false;
    void (async () => {
      if (incoming.method !== "POST") {
        outgoing.setHeader("allow", "POST");
        return failure(outgoing, 405, "method_not_allowed", "Use POST to start a backup");
      }
      const refused = await checkAdminSecret(source.service, incoming);
      if (refused) return forward(outgoing, refused);
      if (running) {
        return failure(
          outgoing,
          409,
          "conflict",
          "A backup is already running; nothing was changed. Try again once it is done",
        );
      }
      running = true;
      let staged: Staged | undefined;
      try {
        staged = await stageBackup(source.dataDir, source.store);
        await stream(staged, outgoing);
      } catch (error) {
        if (!outgoing.headersSent) {
          failure(outgoing, 503, "service_unavailable", `The backup failed: ${messageOf(error)}`);
        } else {
          source.warn(`backup: cut short: ${messageOf(error)}`);
          outgoing.destroy();
        }
      } finally {
        if (staged) await rm(staged.folder, { recursive: true, force: true }).catch(() => {});
        running = false;
      }
    })();
    return true;
  };
}

/**
 * Asks the service whether the request's `AdminSecret` is right, with a cheap admin read.
 * @returns the service's refusal (401, 404 without an admin secret, 429, 503 while it
 *   stops), or `undefined` when the secret is right
 */
async function checkAdminSecret(service: FormService, incoming: IncomingMessage) {
  const secret = incoming.headers.adminsecret;
  const headers = new Headers();
  if (typeof secret === "string") headers.set("AdminSecret", secret);
  const probe = new Request("http://backup.invalid/api/admin/accounts", { headers });
  const answer = await service.fetch(probe, { clientAddress: incoming.socket.remoteAddress });
  if (answer.ok) {
    await answer.body?.cancel();
    return undefined;
  }
  return answer;
}

/** Streams the staged folder as a tar archive; resolves once sent, rejects if cut. */
async function stream(staged: Staged, outgoing: ServerResponse): Promise<void> {
  outgoing.writeHead(200, {
    "content-type": "application/x-tar",
    "cache-control": "no-store",
    [BACKUP_FILES_HEADER]: String(staged.files),
    [BACKUP_BYTES_HEADER]: String(staged.bytes),
  });
  const archive = create({ cwd: staged.folder, portable: true }, staged.entries);
  await new Promise<void>((resolve, reject) => {
    outgoing.once("close", () => {
      if (outgoing.writableFinished) resolve();
      else reject(new Error("the client went away"));
    });
    archive.on("error", reject);
    archive.pipe(outgoing);
  });
}

async function forward(outgoing: ServerResponse, answer: Response): Promise<void> {
  outgoing.writeHead(answer.status, Object.fromEntries(answer.headers));
  outgoing.end(Buffer.from(await answer.arrayBuffer()));
}

/** Answers the §8 error envelope. */
function failure(outgoing: ServerResponse, status: number, code: string, message: string) {
  const body = { id: "", message, action_successful: false, error: code };
  outgoing.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  outgoing.end(JSON.stringify(body));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
