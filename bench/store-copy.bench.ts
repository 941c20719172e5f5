/**
 * `copyStore` (docs/design.md §24), what `npm run admin -- copy --to cosmos` runs: records a
 * second copied from a lowdb DATA_DIR of {@link SUBMISSIONS} submissions (every
 * {@link FILE_EVERY}th with a file, seeded through the service as `test/azure/copy-seed.ts`
 * does) to the Cosmos DB stand-in (plain HTTP, in a process of its own as Cosmos DB would be:
 * `test/emulators/cosmos-process.ts`) and Azurite, a new database per round, beside the
 * baseline, the same copy to the memory store and memory blob store, in the same run:
 * {@link ROUNDS} rounds each, the order alternating, median reported. A copy's time includes
 * its two counting scans (source first, target last) and the files.
 * Goal: lowdb → Cosmos stand-in at least {@link GOAL} records a second (10,000 submissions
 * in under 20 s); the stand-in, a single Node process keeping items in memory, costs more
 * per request than Cosmos DB's gateway would.
 * Run: `node --conditions=formwork-source --import tsx bench/store-copy.bench.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createAzureBlobStore } from "../adapters/azure-blob/index.ts";
import { createCosmosStore } from "../adapters/cosmos/index.ts";
import { createFsBlobStore } from "../adapters/fs/index.ts";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createMemoryBlobStore, createMemoryStore } from "../adapters/memory/index.ts";
import { startAzurite } from "../examples/azure/emulators.ts";
import { copyStore } from "../src/index.ts";
import type { BlobStore, Store } from "../src/ports/index.ts";
import { seedDataDir } from "../test/azure/copy-seed.ts";
import { startCosmosProcess } from "../test/emulators/cosmos-process.ts";

const SUBMISSIONS = 10_000;
const FILE_EVERY = 40;
const ROUNDS = 3;
const GOAL = 500;

type Target = "memory (baseline)" | "Cosmos stand-in + Azurite";

const dataDir = await mkdtemp(join(tmpdir(), "formwork-copy-bench-"));
const [cosmos, azurite] = await Promise.all([startCosmosProcess(), startAzurite()]);
try {
  await seedDataDir(dataDir, SUBMISSIONS, FILE_EVERY);
  const from = createLowdbStore({ directory: join(dataDir, "records") });
  const fromBlobs = createFsBlobStore({
    directory: join(dataDir, "files"),
    storageUrl: "http://localhost:3000/storage",
    signingSecret: "unused",
  });
  const targets: Record<Target, (round: number) => { to: Store; toBlobs: BlobStore }> = {
    "memory (baseline)": () => ({ to: createMemoryStore(), toBlobs: createMemoryBlobStore() }),
    "Cosmos stand-in + Azurite": (round) => ({
      to: createCosmosStore({
        endpoint: cosmos.endpoint,
        key: cosmos.key,
        databaseId: `bench-${round}`,
        endpointDiscovery: false,
        createIfMissing: true,
        recoveryIntervalMs: 0,
      }),
      toBlobs: createAzureBlobStore({ connectionString: azurite.connectionString }),
    }),
  };
  const rates: Record<Target, number[]> = {
    "memory (baseline)": [],
    "Cosmos stand-in + Azurite": [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(targets) as Target[];
    if (round % 2 === 1) order.reverse();
    for (const target of order) {
      const { to, toBlobs } = targets[target](round);
      const started = performance.now();
      let copying = 0;
      let copied = 0;
      const report = await copyStore({
        from,
        to,
        fromBlobs,
        toBlobs,
        concurrency: 24,
        onProgress: (progress) => {
          copying ||= performance.now();
          if (progress.done === progress.total) copied = performance.now();
        },
      });
      const ended = performance.now();
      const seconds = (ended - started) / 1000;
      const phases = [copying - started, copied - copying, ended - copied].map((ms) =>
        (ms / 1000).toFixed(2),
      );
      await to.close();
      const records = report.written + report.existed;
      if (!report.matches) throw new Error(`${target}: the counts differ`);
      const rate = records / seconds;
      rates[target].push(rate);
      console.log(
        `round ${round + 1} ${target}: ${records} records, ${report.files.written} files in ${seconds.toFixed(2)} s (count ${phases[0]} s, copy ${phases[1]} s, count the target ${phases[2]} s) = ${Math.round(rate)} records/s`,
      );
    }
  }
  await from.close();
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const baseline = median(rates["memory (baseline)"]);
  const cosmosRate = median(rates["Cosmos stand-in + Azurite"]);
  console.log(
    `copy lowdb → memory (baseline): ${Math.round(baseline)} records/s; lowdb → Cosmos stand-in + Azurite: ${Math.round(cosmosRate)} records/s (${(cosmosRate / baseline).toFixed(2)} of the baseline); goal ≥ ${GOAL} records/s: ${cosmosRate >= GOAL ? "met" : "NOT met"}`,
  );
} finally {
  await Promise.all([cosmos.stop(), azurite.stop()]);
  await rm(dataDir, { recursive: true, force: true });
}
