/**
 * Makes the Cosmos DB stand-in (`@vercel/cosmosdb-server`) answer a transactional batch as
 * Cosmos DB does: all or nothing. Out of the box it runs a batch op by op and stops at the
 * first failure without rolling back the ops before it, and it refuses a patch in a batch.
 * The Cosmos store writes every multi-record operation through transactional batches (its
 * crash promises rest on them: adapters/cosmos/README.md), so the stand-in must keep the
 * promise Cosmos DB keeps, or the tests would prove nothing about it.
 *
 * This wraps the stand-in's route lookup (a CommonJS export its request handler reads on
 * every request) so that a batch request reaches a handler of ours. It runs the same
 * operations, a patch included, keeping each op's item as it was before the op, and puts
 * them back when an op fails, so a failed atomic batch leaves every item, etag included, as
 * it was. Cosmos DB's answer to such a batch is kept: the failing op's status, 424 for
 * every other op.
 *
 * Test and development infrastructure only; it reaches into the stand-in's internals
 * (checked against 1.0.x), which its tests would show the day they change.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const lib = join(dirname(require.resolve("@vercel/cosmosdb-server/package.json")), "lib");

/** The parts of the stand-in's item store this needs. */
interface Items {
  delete(id: string, partition: unknown): void;
  _set(item: unknown): unknown;
}
interface Collection {
  read(): unknown;
  document(id: string, partition: unknown): { read(): unknown };
  documents: Items;
}
interface Account {
  database(id: string): { collection(id: string): Collection };
}
interface Outcome {
  statusCode: number;
  body?: { _etag?: string };
}
type Operation = Record<string, unknown> & {
  operationType?: string;
  id?: string;
  partitionKey?: string;
  ifMatch?: string;
  resourceBody?: { operations?: unknown[]; condition?: string };
};

let installed = false;

/** Installs the atomic batch handler, once per process, before or after a server starts. */
export function makeStandInBatchesAtomic(): void {
  if (installed) return;
  installed = true;
  const original = (require(join(lib, "handler/batch-documents.js")) as { default: unknown })
    .default;
  const routes = require(join(lib, "routes.js")) as {
    default: (req: IncomingMessage) => [unknown, unknown] | undefined;
  };
  const ops = require(join(lib, "handler/_document-operations.js")) as Record<
    string,
    (collection: Collection, input: Operation) => Outcome
  >;
  const { patchOperation } = require(join(lib, "handler/_patch-operations.js")) as {
    patchOperation: (collection: Collection, input: Record<string, unknown>) => Outcome;
  };
  const { parsePartitionKey } = require(join(lib, "utils/get-partition-from-header.js")) as {
    parsePartitionKey: (header: string, id: string) => unknown;
  };
  const readJson = (require(join(lib, "json.js")) as { default: (r: IncomingMessage) => unknown })
    .default;
  const run: Record<string, (collection: Collection, input: Operation) => Outcome> = {
    Create: (c, input) => ops.createOperation?.(c, input) as Outcome,
    Upsert: (c, input) => ops.upsertOperation?.(c, input) as Outcome,
    Read: (c, input) => ops.readOperation?.(c, input) as Outcome,
    Delete: (c, input) => ops.deleteOperation?.(c, input) as Outcome,
    Replace: (c, input) => ops.replaceOperation?.(c, input) as Outcome,
    Patch: (c, input) =>
      patchOperation(c, {
        id: input.id,
        partitionKey: input.partitionKey,
        ifMatch: input.ifMatch,
        operations: input.resourceBody?.operations ?? [],
        condition: input.resourceBody?.condition,
      }),
  };
  const atomicBatch = async (
    account: Account,
    req: IncomingMessage,
    res: ServerResponse,
    { dbId, collId }: { dbId: string; collId: string },
  ) => {
    const body = await readJson(req);
    const atomic = headerIsTrue(req, "x-ms-cosmos-batch-atomic");
    const continueOnError = headerIsTrue(req, "x-ms-cosmos-batch-continue-on-error");
    const collection = account.database(dbId).collection(collId);
    if (!collection.read()) {
      res.statusCode = 404;
      return {};
    }
    if (!Array.isArray(body)) {
      res.statusCode = 400;
      return { message: "Invalid request body" };
    }
    const items = collection.documents;
    // Each op's item as it was before the op, to put back if the batch fails.
    const before: { id: string; partition: unknown; item: unknown }[] = [];
    const answers: Record<string, unknown>[] = [];
    let failedAt = -1;
    for (const [index, input] of (body as Operation[]).entries()) {
      if (failedAt >= 0 && !continueOnError) {
        answers.push({ statusCode: 424, requestCharge: 0 });
        continue;
      }
      const operation = run[String(input?.operationType)];
      if (!operation) {
        res.statusCode = 400;
        return { message: `Operation type '${input?.operationType}' is not supported in Batch.` };
      }
      const id = String(input.id ?? (input.resourceBody as { id?: unknown } | undefined)?.id);
      const partition = parsePartitionKey(input.partitionKey ?? JSON.stringify([id]), id);
      before.push({ id, partition, item: collection.document(id, partition).read() });
      const result = operation(collection, input);
      if (result.statusCode >= 400) {
        if (failedAt < 0) failedAt = index;
        answers.push({ statusCode: result.statusCode, requestCharge: 0 });
      } else {
        answers.push({
          statusCode: result.statusCode,
          requestCharge: 1,
          eTag: result.body?._etag,
          resourceBody: result.body,
        });
      }
    }
    if (atomic && failedAt >= 0) {
      // Cosmos DB applies none of a failed transactional batch: each item goes back, etag
      // included, the last op's first.
      for (const { id, partition, item } of before.reverse()) {
        if (collection.document(id, partition).read()) items.delete(id, partition);
        if (item) items._set(item);
      }
      return answers.map((answer, index) =>
        index === failedAt ? answer : { statusCode: 424, requestCharge: 0 },
      );
    }
    return answers;
  };
  const lookUp = routes.default;
  routes.default = (req) => {
    const route = lookUp(req);
    return route && route[1] === original ? [route[0], atomicBatch] : route;
  };
}

function headerIsTrue(req: IncomingMessage, name: string): boolean {
  const value = req.headers[name];
  const values = Array.isArray(value) ? value : value ? [value] : [];
  return values.some((v) => v.toLowerCase() === "true");
}
