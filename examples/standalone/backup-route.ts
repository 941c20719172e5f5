/**
 * `POST /api/admin/backup`: the standalone server streams a consistent copy of its data
 * folder as a tar archive while it goes on serving (docs/design.md §23). It lies beside the
 * service, not in it: the library's admin API knows no storage adapter. The admin secret is
 * checked by the service itself (one guard against guessing for every admin route).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { Transform } from "node:stream";
import type { FormService } from "formwork";
import type { LowdbStore } from "formwork/adapters/lowdb";
import { archive } from "./backup-archive.ts";
import { removeStaging, type Staged, stageBackup } from "./backup-staging.ts";

/** The path of the backup route. */
export const BACKUP_PATH = "/api/admin/backup";

/** Headers of a backup's answer that announce what the archive holds, for progress. */
export const BACKUP_FILES_HEADER = "x-backup-files";
export const BACKUP_BYTES_HEADER = "x-backup-bytes";

/**
 * The pace of a backup when the client names none, in MiB a second: what the bench showed
 * the server can spare while it serves S2 at full load.
 */
export const DEFAULT_MAX_RATE = 16;

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
 * @returns `handle`, a request handler that answers the backup route and returns `true`, or
 *   returns `false` for every other request; and `stop`, for when the server stops
 */
export function backupRoute(source: BackupSource) {
  // The backup running, if any; a token, so that one ending never clears another's.
  let running: object | undefined;
  // The answer of the backup running: stopping the server cuts it rather than wait for it.
  let sending: ServerResponse | undefined;
  const handle = (incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const url = new URL(incoming.url ?? "/", "http://backup.invalid");
    if (url.pathname !== BACKUP_PATH) return false;
    void (async () => {
      if (incoming.method !== "POST") {
        outgoing.setHeader("allow", "POST");
        return failure(outgoing, 405, "method_not_allowed", "Use POST to start a backup");
      }
      const refused = await checkAdminSecret(source.service, incoming);
      if (refused) return forward(outgoing, refused);
      const rate = maxRateOf(url.searchParams.get("max_rate"));
      if (rate === undefined) {
        return failure(
          outgoing,
          400,
          "validation_failed",
          "max_rate must be a number of MiB a second, 0 for no limit",
        );
      }
      if (running) {
        return failure(
          outgoing,
          409,
          "conflict",
          "A backup is already running; nothing was changed. Try again once it is done",
        );
      }
      const token = {};
      running = token;
      const end = () => {
        if (running === token) running = undefined;
      };
      // Once the whole archive is handed to the socket: a client that starts its next
      // backup as soon as it has read this one is not refused.
      outgoing.once("finish", end);
      sending = outgoing;
      outgoing.once("close", () => {
        if (sending === outgoing) sending = undefined;
      });
      let staged: Staged | undefined;
      try {
        staged = await stageBackup(source.dataDir, source.store);
        await stream(staged, outgoing, rate);
      } catch (error) {
        if (!outgoing.headersSent) {
          failure(outgoing, 503, "service_unavailable", `The backup failed: ${messageOf(error)}`);
        } else {
          source.warn(`backup: cut short: ${messageOf(error)}`);
          outgoing.destroy();
        }
      } finally {
        end();
        if (staged) await removeStaging(staged.folder).catch(() => {});
      }
    })();
    return true;
  };
  return {
    handle,
    /** Cuts the backup being sent, if any: its client sees a cut archive and keeps nothing. */
    stop: () => sending?.destroy(),
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

/**
 * Streams the staged folder as a tar archive, at most `rate` MiB a second (0: no limit);
 * resolves once sent, rejects if cut.
 */
async function stream(staged: Staged, outgoing: ServerResponse, rate: number): Promise<void> {
  const written = await archive(staged);
  outgoing.writeHead(200, {
    "content-type": "application/x-tar",
    "cache-control": "no-store",
    [BACKUP_FILES_HEADER]: String(staged.files),
    [BACKUP_BYTES_HEADER]: String(staged.bytes),
  });
  const sent = new Promise<void>((resolve, reject) => {
    outgoing.once("close", () => {
      if (outgoing.writableFinished) resolve();
      else reject(new Error("the client went away"));
    });
  });
  written.stream.pipe(paced(rate * 1024 * 1024)).pipe(outgoing);
  try {
    await Promise.all([written.done, sent]);
  } finally {
    written.stop();
  }
}

/**
 * Passes bytes on at most `bytesPerSecond` (0: as fast as they come). Every MiB the server
 * hands from the archive to the socket costs its thread a few milliseconds of CPU, which
 * the requests served meanwhile lose: the pace bounds that share (`bench/backup.bench.ts`).
 */
function paced(bytesPerSecond: number): Transform {
  const started = performance.now();
  let passed = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      passed += chunk.byteLength;
      const due = bytesPerSecond > 0 ? started + (passed / bytesPerSecond) * 1000 : 0;
      const wait = due - performance.now();
      if (wait <= 0) done(null, chunk);
      else setTimeout(() => done(null, chunk), wait);
    },
  });
}

/** The `max_rate` query parameter: MiB a second, {@link DEFAULT_MAX_RATE} when absent. */
function maxRateOf(raw: string | null): number | undefined {
  if (raw === null || raw === "") return DEFAULT_MAX_RATE;
  return /^\d{1,6}(\.\d{1,3})?$/.test(raw) ? Number(raw) : undefined;
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
