/**
 * Formwork: the whole HTTP interface of a hosted form service, served by a framework-agnostic
 * `fetch` handler over pluggable storage ports.
 */
export type { AccountSummary, AdminApi, TokenSummary } from "./admin.ts";
export type {
  Caller,
  CustomerRecord,
  CustomerStatus,
  PartnerOptions,
} from "./domain/accounts/index.ts";
export type { Limits } from "./domain/context.ts";
export type { Device } from "./domain/device.ts";
export { type CustomerQuotas, defaultCustomerQuotas } from "./domain/quotas/index.ts";
export type { RateLimitOptions } from "./http/rate-limits.ts";
export {
  BodyAbortedError,
  ConflictError,
  type ErrorCode,
  errorStatus,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceError,
  UnauthorizedError,
  ValidationError,
  type ValidationIssue,
} from "./kernel/errors.ts";
export {
  createSmtpMailer,
  nodemailerMessage,
  type SmtpMailerOptions,
} from "./mail/smtp-mailer.ts";
export type { BlobInfo, BlobStore } from "./ports/blob-store.ts";
export { evaluateQuery } from "./ports/evaluate-query.ts";
export type { LogFields, Logger } from "./ports/logger.ts";
export { type Mailer, type MailMessage, MailRejectedError } from "./ports/mailer.ts";
export {
  type Condition,
  type Page,
  type Query,
  type Store,
  StoreConflictError,
  StoreContinuationError,
  type Stored,
  type StoreRecord,
  type WriteOptions,
} from "./ports/store.ts";
export type {
  AttemptOutcome,
  DeliveryControl,
  DeliveryResult,
  WebhookMessage,
  WebhookSender,
} from "./ports/webhook-sender.ts";
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
