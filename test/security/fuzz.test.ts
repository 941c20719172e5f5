/**
 * The seeded fuzz: at least 10,000 requests over every route of the OpenAPI document, in
 * process through `service.fetch`, most on the memory store and a share on lowdb. Prints
 * its seed; `FUZZ_SEED=<seed>` replays a run. See fuzz-check.ts for the rules.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch } from "../helpers.ts";
import { problemOf } from "./fuzz-check.ts";
import { type FuzzRequest, fuzzRequest } from "./fuzz-requests.ts";
import { buildWorld } from "./fuzz-world.ts";
import { fuzzSeed, mulberry32 } from "./prng.ts";

const seed = fuzzSeed();
console.log(`fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);

/** Requests per world: a fresh world then, since fuzzed calls may delete what they aim at. */
const perWorld = 500;

/**
 * Sends `requests` fuzzed requests, `parallel` at a time (the requests are drawn in the same
 * order whatever the interleaving, so a seed replays the same requests).
 */
async function fuzz(
  t: TestContext,
  requests: number,
  newStore: (directory: string) => Store,
  salt: number,
  parallel = 1,
) {
  t.diagnostic(`seed ${seed}`);
  const random = mulberry32(seed ^ salt);
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  for (let done = 0; done < requests; done += perWorld) {
    const directory = await mkdtemp(join(tmpdir(), "formwork-fuzz-"));
    const world = await buildWorld(newStore(join(directory, "db")), join(directory, "files"));
    try {
      const inWorld = Math.min(perWorld, requests - done);
      for (let i = 0; i < inWorld; i += parallel) {
        const size = Math.min(parallel, inWorld - i);
        const batch = Array.from({ length: size }, () => fuzzRequest(random, world));
        const problems = await Promise.all(
          batch.map((sent) => answerProblem(conformingFetch(world.service), sent, statuses)),
        );
        for (const [index, problem] of problems.entries()) {
          const sent = batch[index];
          if (problem && sent && failures.length < 20)
            failures.push(`${problem}\n    ${summary(sent)}`);
        }
      }
    } finally {
      await world.service.close();
      await rm(directory, { recursive: true, force: true });
    }
  }
  t.diagnostic(`statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  assert.equal(total, requests);
  assert.deepEqual(failures, [], `FUZZ_SEED=${seed} replays these`);
}

async function answerProblem(
  fetch: (request: Request) => Promise<Response>,
  sent: FuzzRequest,
  statuses: Map<number, number>,
): Promise<string | null> {
  let response: Response;
  try {
    response = await fetch(new Request(sent.url, sent));
  } catch (error) {
    statuses.set(0, (statuses.get(0) ?? 0) + 1);
    return `fetch threw ${error instanceof Error ? error.message : String(error)}`;
  }
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const text = await response.text();
  const problem = problemOf(
    sent.method,
    new URL(sent.url).pathname,
    response.status,
    response.headers.get("content-type") ?? "",
    text,
  );
  return problem && `${problem}: ${text.slice(0, 300)}`;
}

function summary(sent: FuzzRequest): string {
  const body =
    typeof sent.body === "string"
      ? sent.body
      : new TextDecoder().decode(sent.body ?? new Uint8Array());
  const headers = sent.headers.map(([name, value]) => `${name}: ${value.slice(0, 60)}`).join("; ");
  return `${sent.method} ${sent.url.slice(0, 300)} [${headers}] ${body.slice(0, 200)}`;
}

describe("seeded fuzz over every route", () => {
  it("answers 10,000 fuzzed requests on the memory store without a 5xx, a bare 4xx or a stack", async (t) => {
    await fuzz(t, 10_000, () => createMemoryStore(), 0);
  });

  it("answers 1,000 fuzzed requests on lowdb the same way, 8 at a time", async (t) => {
    await fuzz(t, 1_000, (directory) => createLowdbStore({ directory }), 0x5eed, 8);
  });
});
