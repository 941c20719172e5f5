/**
 * What the service writes to its {@link Logger}: one line per request, client events, and
 * unexpected errors. Every line is built here from named fields only: a method, a route
 * pattern, a status, a duration, an id, an error's name, code, message and stack. No header
 * value, body, query string or secret can reach a line, whatever the request held.
 */
import type { LogFields, Logger } from "../ports/logger.ts";

/** The route of a request that no route knows: the raw path is never logged. */
export const unknownRoute = "(unknown)";

/** The route of a download served by a blob store under `{storage_url}` (fs). */
export const downloadRoute = "{storage_url}/:container/:name";

/** The line written for every request answered. */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The route pattern (`/api/form/:formId`), {@link unknownRoute} or {@link downloadRoute}. */
  route: string;
  status: number;
  /** Milliseconds from the request's arrival to its response head (not its streamed body). */
  ms: number;
}

/** Where the service reports what happens. */
export interface RequestLog {
  /** Whether `answered` writes anything: without a logger it does not. */
  readonly logsRequests: boolean;
  /** One request answered: `info`. */
  answered(line: RequestLine): void;
  /** The client cut the request body short: `debug`, no stack (a client event). */
  bodyAborted(fields: Pick<RequestLine, "requestId" | "method" | "route">): void;
  /** A fault of the service, with the request's id when a request met it: `error`. */
  unexpected(error: unknown, requestId?: string): void;
  /**
   * A port's failure answered 503 (storage down, a damaged file), with what it said, so that
   * an operator sees why: `warn`, no stack.
   */
  unavailable(error: unknown, requestId: string): void;
}

/**
 * The service's log over `logger`. Unexpected errors go to `logger.error` and to `onError`;
 * with neither, to `console.error` as before loggers existed. Without a logger nothing else
 * is written.
 */
export function createRequestLog(
  logger: Logger | undefined,
  onError: ((error: unknown) => void) | undefined,
): RequestLog {
  return {
    logsRequests: logger !== undefined,
    answered(line) {
      logger?.info({ ...line }, "request");
    },
    bodyAborted({ requestId, method, route }) {
      logger?.debug({ requestId, method, route }, "request body cut short by the client");
    },
    unavailable(error, requestId) {
      const { stack: _, ...err } = errorFields(error);
      logger?.warn({ requestId, err }, "storage unavailable");
    },
    unexpected(error, requestId) {
      if (logger) {
        const fields: LogFields = { err: errorFields(error) };
        if (requestId !== undefined) fields.requestId = requestId;
        logger.error(fields, "unexpected error");
      }
      if (onError) onError(error);
      else if (!logger) console.error("formwork: unexpected error", error);
    },
  };
}

/**
 * An error as log fields: its name, string `code`, message and stack, and its `cause` alike
 * (three deep). Other properties are left out: SDK errors carry requests, headers and keys.
 */
export function errorFields(error: unknown, depth = 0): LogFields {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const fields: LogFields = { type: error.name, message: error.message, stack: error.stack };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") fields.code = code;
  if (error.cause !== undefined && depth < 3) fields.cause = errorFields(error.cause, depth + 1);
  return fields;
}
