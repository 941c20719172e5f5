/**
 * The contracts, published as `formwork/ports`: the ports an adapter implements (`Store`,
 * `BlobStore`, `Mailer`, `Logger`, `WebhookSender`, …), the types they speak in, and the
 * errors they throw, each documented with what it promises. Nothing here does anything: the
 * helpers that adapters share are the kit, `formwork/ports/kit` (`kit.ts`). The built-in
 * adapters import only these two modules and their own SDK, exactly as a third party would.
 */
export { StoreUnavailableError } from "./adapter-errors.ts";
export type { BlobInfo, BlobStore } from "./blob-store.ts";
export type { Destinations } from "./destinations.ts";
export { type DownloadRefusal, DownloadRefusedError } from "./download-refused.ts";
export type { LogFields, Logger } from "./logger.ts";
export { type Mailer, type MailMessage, MailRejectedError } from "./mailer.ts";
export {
  type Checkout,
  type CheckoutRequest,
  type CheckoutState,
  type PaymentEvent,
  PaymentEventRejectedError,
  PaymentRefusedError,
  type PaymentStatus,
  type Payments,
} from "./payments.ts";
export {
  type BatchOp,
  type Condition,
  type Page,
  type PatchOp,
  type Query,
  type Scalar,
  type ScannedRecord,
  type ScanOptions,
  type ScanPage,
  type Store,
  StoreConflictError,
  StoreContinuationError,
  type Stored,
  type StoreRecord,
  type StoreStats,
  type WriteOptions,
} from "./store.ts";
export type { RetryPolicy } from "./webhook-retries.ts";
export type {
  AttemptOutcome,
  DeliveryControl,
  DeliveryResult,
  WebhookMessage,
  WebhookSender,
} from "./webhook-sender.ts";
