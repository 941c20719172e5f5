/**
 * Liveness and readiness (docs/design.md §10): `GET /healthz` answers 200 while the process
 * serves; `GET /readyz` answers 200 only when the store and the blob store answer a cheap
 * read within a short time, the webhook worker runs and every check the embedder added
 * passes, else 503 naming the parts that failed, and 503 at once once a stop began. Both
 * are answered before everything else: no credentials read, no rate limit, no log line, and
 * answered during a stop too.
 */
import type { Context } from "./domain/context.ts";
import { MethodNotAllowedError } from "./kernel/errors.ts";
import type { BlobStore } from "./ports/blob-store.ts";
import { failureResponse } from "./routes/router.ts";

/** What `/readyz` answers, and `FormService.ready` resolves with. */
export interface Readiness {
  /** `ready` (200), `unavailable` (503: a part failed) or `stopping` (503: a stop began). */
  status: "ready" | "unavailable" | "stopping";
  /** The parts that failed: `store`, `blobs`, `worker`, or a name of `readinessChecks`. */
  failed: string[];
}

/** What the probes look at. */
export interface ProbeSources {
  ctx: Pick<Context, "store" | "blobs">;
  /** Whether the webhook worker runs; `undefined` when it was turned off on purpose. */
  workerRuns: (() => boolean) | undefined;
  /** Whether a stop began. */
  stopping: () => boolean;
  /** The embedder's own checks, by name; each fails by throwing or by taking too long. */
  checks: Record<string, () => Promise<unknown>>;
  /** How long each check may take. */
  timeoutMs: number;
}

/** A name no form, container or record takes: the cheap reads look for nothing there. */
const absent = "readiness-probe";

/** The probes over `sources`: the readiness, and the answer to a probe request. */
export function createProbes(sources: ProbeSources, basePath: string) {
  let checking: Promise<Readiness> | undefined;
  const ready = (): Promise<Readiness> => {
    if (sources.stopping()) return Promise.resolve({ status: "stopping", failed: [] });
    // Probes that arrive together share one round of checks.
    checking ??= readinessOf(sources).finally(() => {
      checking = undefined;
    });
    return checking;
  };
  const paths = { health: `${basePath}/healthz`, ready: `${basePath}/readyz` };
  return {
    ready,
    /** The route of a probe request (its path), or `null` for any other request. */
    routeOf(request: Request): string | null {
      if (!request.url.includes("z")) return null;
      const path = new URL(request.url).pathname;
      return path === paths.health || path === paths.ready ? path : null;
    },
    /** The answer to a probe, or `null` for any other request. */
    answer(request: Request): Promise<Response> | null {
      // Cheap on every other request: no URL parsed unless the path may be a probe's.
      if (!request.url.includes("z")) return null;
      const path = new URL(request.url).pathname;
      if (path !== paths.health && path !== paths.ready) return null;
      if (request.method !== "GET") {
        const refusal = new MethodNotAllowedError(["GET"]);
        return Promise.resolve(failureResponse(refusal, request, basePath));
      }
      if (path === paths.health) return Promise.resolve(json(200, { status: "ok" }));
      return ready().then((readiness) => json(readiness.status === "ready" ? 200 : 503, readiness));
    },
  };
}

async function readinessOf(sources: ProbeSources): Promise<Readiness> {
  const { store, blobs } = sources.ctx;
  const checks: [string, () => Promise<unknown>][] = [
    // A point read of a record no collection holds: one request to Cosmos DB, no file read.
    ["store", () => store.get("forms", absent, absent)],
    ...(blobs ? [blobCheck(blobs)] : []),
    ...Object.entries(sources.checks),
  ];
  const outcomes = await Promise.all(
    checks.map(([, check]) => withinTime(check, sources.timeoutMs)),
  );
  const failed = checks.flatMap(([name], index) => (outcomes[index] ? [] : [name]));
  if (sources.workerRuns && !sources.workerRuns()) failed.push("worker");
  if (sources.stopping()) return { status: "stopping", failed: [] };
  return { status: failed.length === 0 ? "ready" : "unavailable", failed };
}

function blobCheck(blobs: BlobStore): [string, () => Promise<unknown>] {
  return ["blobs", () => blobs.get(absent, absent).then((found) => found?.body.cancel())];
}

/** Whether `check` resolves within `ms`. */
async function withinTime(check: () => Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(check)
        .then(
          () => true,
          () => false,
        ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}
