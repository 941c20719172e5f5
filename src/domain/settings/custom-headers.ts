import * as v from "valibot";

/** RFC 9110 token characters: what a header name may be made of. */
export const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * What a header value may hold: printable ASCII, with spaces and tabs inside only (RFC 9110
 * field-value without the obsolete Latin-1 range, which receivers read inconsistently and
 * fetch refuses beyond U+00FF).
 */
export const headerValue = /^[\x21-\x7E]([\t\x20-\x7E]*[\x21-\x7E])?$/;
/** Headers the service sets itself, or that would break the request, may not be replaced. */
export const reservedHeaders = new Set([
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
  "user-agent",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
]);

/**
 * The custom header a webhook (W2) or a form's destination post sends: `http_header_key`
 * and `http_header_value`, each "" when none. That they go both or neither is checked by
 * {@link headerPairComplete} on the object holding them.
 */
export const customHeaderEntries = {
  http_header_key: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.maxLength(256),
      v.check((key) => key === "" || headerName.test(key), "must be a valid header name"),
      v.check((key) => !reservedHeaders.has(key.toLowerCase()), "is set by the service"),
    ),
    "",
  ),
  http_header_value: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.maxLength(4096),
      v.check(
        (value) => value === "" || headerValue.test(value),
        "must be printable ASCII, without line breaks or surrounding spaces",
      ),
    ),
    "",
  ),
};

/** Whether an object's custom header key and value go both or neither. */
export function headerPairComplete(body: { http_header_key: string; http_header_value: string }) {
  return (body.http_header_key === "") === (body.http_header_value === "");
}

/** The issue when they do not. */
export const headerPairIssue = "needs http_header_value with it (both or neither)";
