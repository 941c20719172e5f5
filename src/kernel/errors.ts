/**
 * The service's errors: each carries an HTTP status and a stable snake_case code from one
 * table, and renders as the failure envelope of docs/design.md §8.
 */

/** Every error code the service answers with, and its HTTP status. */
export const errorStatus = {
  validation_failed: 400,
  challenge_required: 400,
  unauthorized: 401,
  forbidden: 403,
  quota_exceeded: 403,
  form_disabled: 403,
  form_closed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

/** A stable error code. */
export type ErrorCode = keyof typeof errorStatus;

/** One problem with the input: where (`path`, dotted) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Base of every error the service answers on purpose. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: ValidationIssue[] | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    issues?: ValidationIssue[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ServiceError";
    this.code = code;
    this.status = errorStatus[code];
    this.issues = issues;
  }
}

/** 400: the request is malformed or fails validation. */
export class ValidationError extends ServiceError {
  constructor(message: string, issues: ValidationIssue[] = [], options?: ErrorOptions) {
    super("validation_failed", message, issues, options);
  }
}

/** 401: credentials are missing, unknown or expired. */
export class UnauthorizedError extends ServiceError {
  constructor(message = "Valid credentials are required") {
    super("unauthorized", message);
  }
}

/** 403: the caller is known but may not do this. */
export class ForbiddenError extends ServiceError {
  constructor(message = "You do not have permission to do this") {
    super("forbidden", message);
  }
}

/** 404: no such route, or a record the caller may not see. */
export class NotFoundError extends ServiceError {
  constructor(message = "Not found") {
    super("not_found", message);
  }
}

/**
 * 405: the path is known but not with this method. `allow` lists the methods it serves, for
 * the `Allow` header.
 */
export class MethodNotAllowedError extends ServiceError {
  readonly allow: readonly string[];

  constructor(
    allow: readonly string[],
    message = `This endpoint answers only ${allow.join(", ")}`,
  ) {
    super("method_not_allowed", message);
    this.allow = allow;
  }
}

/**
 * 400: the client stopped sending the request body before its end (it disconnected, or the
 * runtime gave up on the upload). A client event, not a fault of the service: the client is
 * usually gone and never reads the answer.
 */
export class BodyAbortedError extends ValidationError {
  constructor(options?: ErrorOptions) {
    super("The request body was cut short", [], options);
  }
}

/** 409: the record already exists. */
export class ConflictError extends ServiceError {
  constructor(message: string) {
    super("conflict", message);
  }
}

/**
 * 503: the store or the blob service cannot be reached at the moment. `retryAfterSeconds`,
 * when known, becomes the answer's `Retry-After`.
 */
export class UnavailableError extends ServiceError {
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, retryAfterSeconds?: number, options?: ErrorOptions) {
    super("service_unavailable", message, undefined, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
