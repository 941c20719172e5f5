/**
 * Formwork, for embedders: the whole HTTP interface of a hosted form service, served by a
 * framework-agnostic `fetch` handler over pluggable storage ports.
 *
 * Entry points, one per audience: `formwork` (this one) creates and configures the service;
 * `formwork/ports` holds the contracts, the port interfaces that the options below name
 * (`Store`, `BlobStore`, `Logger`, `Mailer`, `WebhookSender`) and their errors;
 * `formwork/ports/kit` the helpers adapters share; `formwork/testing` the conformance suites
 * adapters run. The built-in adapters are `formwork/adapters/<name>`.
 */
export type {
  AccountSummary,
  AdminApi,
  IssuedPartner,
  IssuedToken,
  TokenSummary,
} from "./admin.ts";
export {
  type CollectionCount,
  type CopyProgress,
  type CopyReport,
  type CopyStoreOptions,
  copyStore,
  type FileCounts,
} from "./copy/store-copy.ts";
export type { PartnerOptions } from "./domain/accounts/index.ts";
export type { Limits } from "./domain/context.ts";
export {
  type CustomerQuotas,
  defaultCustomerQuotas,
  type QuotaName,
  quotaNames,
} from "./domain/quotas/index.ts";
export type { RateLimitOptions } from "./http/rate-limits.ts";
export {
  ConflictError,
  type ErrorCode,
  errorStatus,
  NotFoundError,
  ServiceError,
  ValidationError,
  type ValidationIssue,
} from "./kernel/errors.ts";
export type { MetricsText } from "./metrics/service-metrics.ts";
export type { Readiness } from "./probes.ts";
export type { ConnectionInfo } from "./request-server.ts";
export {
  type CloseOptions,
  type CloseReport,
  createFormService,
  type FormService,
} from "./service.ts";
export { defaultLimits, type FormServiceOptions } from "./service-options.ts";
export {
  createHttpWebhookSender,
  type HttpWebhookSenderOptions,
} from "./webhooks/http-sender.ts";
