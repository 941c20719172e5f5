/**
 * The adapter kit, published as `formwork/ports`: everything an adapter author needs to write
 * a store, a blob store, a mailer, a logger or a webhook sender as good as the built-in ones,
 * and nothing of the service's insides. The built-in adapters import only this module and
 * their own SDK, exactly as a third party would.
 */
export {
  httpStatusOf,
  isNetworkFailure,
  isNotFound,
  StoreUnavailableError,
} from "./adapter-errors.ts";
export type { BlobInfo, BlobStore } from "./blob-store.ts";
export {
  type ConflictRetryOptions,
  conflictRetryDefaults,
  retryOnConflict,
} from "./conflict-retries.ts";
export type { Destinations } from "./destinations.ts";
export { downloadHeaders, safeFilename } from "./download-headers.ts";
export { type DownloadRefusal, DownloadRefusedError } from "./download-refused.ts";
export { compareValues, decodeCursor, evaluateQuery } from "./evaluate-query.ts";
export type { LogFields, Logger } from "./logger.ts";
export { type Mailer, type MailMessage, MailRejectedError } from "./mailer.ts";
export { queryAll } from "./query-all.ts";
export {
  type ConditionOp,
  conditionFieldsOf,
  isServiceQuery,
  orderFieldsOf,
  type QueryShape,
  serviceQueries,
} from "./service-queries.ts";
export {
  type BatchOp,
  batchOpId,
  batchOpRecord,
  type Condition,
  checkBatch,
  checkBatchOp,
  copyRecord,
  etagSource,
  type Page,
  type PatchOp,
  patchApplies,
  type Query,
  type Scalar,
  type Store,
  StoreConflictError,
  StoreContinuationError,
  type Stored,
  type StoreRecord,
  type WriteOptions,
} from "./store.ts";
export { type RecordChange, type UpdateRecordOptions, updateRecord } from "./update-record.ts";
export type { RetryPolicy } from "./webhook-retries.ts";
export type {
  AttemptOutcome,
  DeliveryControl,
  DeliveryResult,
  WebhookMessage,
  WebhookSender,
} from "./webhook-sender.ts";
