/**
 * The Logger port: where the service writes its log lines. It is the shape of a pino logger
 * (`pino()` or a child of one fits as is), so that an embedder passes the logger it already
 * has; anything with these four methods fits too.
 *
 * The service calls each method with a plain object of fields and a short message, never a
 * string alone. It builds every object from named fields only (ids, route patterns,
 * statuses, durations, an error's name, message and stack); it never puts in a header value,
 * a body, a query string or a secret. A method must not throw, and may write later than it
 * is called (calls are not awaited).
 */
export interface Logger {
  /** Faults of the service (unexpected errors, with their stack). */
  error(fields: LogFields, message?: string): void;
  /** Trouble the service recovered from. */
  warn(fields: LogFields, message?: string): void;
  /** One line per request answered. */
  info(fields: LogFields, message?: string): void;
  /** Client events such as a request body cut short. */
  debug(fields: LogFields, message?: string): void;
}

/** The fields of one log line: a JSON object. */
export type LogFields = Record<string, unknown>;
