/**
 * The adapter kit, published as `formwork/ports/kit`: the helpers that make an adapter as good
 * as the built-in ones without writing them again. The reference meaning of a query
 * (`evaluateQuery`) and the queries the service issues (`serviceQueries`), what a batch checks
 * and writes (`checkBatch`, `checkBatchOp`, `batchOpRecord`), record copies and etags, a record's id read from its JSON text (`leadingId`), the
 * tests that tell "not found" and "unreachable" from real faults, the headers of a download,
 * writes that retry on conflict, and the full scan of a store that lists its partitions. The contracts these serve are `formwork/ports`
 * (`index.ts`); nothing here is part of them.
 */
export { httpStatusOf, isNetworkFailure, isNotFound } from "./adapter-errors.ts";
export {
  type ConflictRetryOptions,
  conflictRetryDefaults,
  retryOnConflict,
} from "./conflict-retries.ts";
export { downloadHeaders, safeFilename } from "./download-headers.ts";
export { etagSource } from "./etags.ts";
export { compareValues, decodeCursor, evaluateQuery } from "./evaluate-query.ts";
export {
  defaultScanLimit,
  type PartitionPlace,
  scanAll,
  scanPartitions,
} from "./partition-scan.ts";
export { queryAll } from "./query-all.ts";
export { copyRecord } from "./record-copy.ts";
export { leadingId } from "./record-texts.ts";
export {
  type ConditionOp,
  conditionFieldsOf,
  isServiceQuery,
  orderFieldsOf,
  type QueryShape,
  serviceQueries,
} from "./service-queries.ts";
export { batchOpId, batchOpRecord, checkBatch, checkBatchOp, patchApplies } from "./store-batch.ts";
export { type RecordChange, type UpdateRecordOptions, updateRecord } from "./update-record.ts";
