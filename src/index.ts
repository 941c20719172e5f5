/**
 * Formwork, for embedders: the whole HTTP interface of a hosted form service, served by a
 * framework-agnostic `fetch` handler over pluggable storage ports.
 *
 * Three entry points, one per audience: `formwork` (this one) creates and configures the
 * service; `formwork/ports` is the adapter kit, with the port interfaces that the options
 * below name (`Store`, `BlobStore`, `Logger`, `Mailer`, `WebhookSender`); `formwork/testing`
 * holds the conformance suites adapters run. The built-in adapters are
 * `formwork/adapters/<name>`.
 */
export type {
  AccountSummary,
  AdminApi,
  IssuedPartner,
  IssuedToken,
  TokenSummary,
} from "./admin.ts";
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
export {
  type ConnectionInfo,
  createFormService,
  defaultLimits,
  type FormService,
  type FormServiceOptions,
} from "./service.ts";
export {
  createHttpWebhookSender,
  type HttpWebhookSenderOptions,
} from "./webhooks/http-sender.ts";
