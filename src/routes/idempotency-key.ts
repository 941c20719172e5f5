import * as v from "valibot";
import type { Answered } from "../domain/flows/index.ts";
import { jsonWithRequestId } from "../http/request-id.ts";
import { parseWith } from "../kernel/parse.ts";
import type { RouteRequest } from "./route-request.ts";

/**
 * The `Idempotency-Key` request header of S2, S3 and S6 (docs/design.md §6), after the IETF
 * draft "The Idempotency-Key HTTP Header Field" and Stripe's keys.
 */

const keySchema = v.pipe(
  v.string(),
  v.regex(/^[\x20-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters"),
);

/** The header as the OpenAPI document lists it on the three operations. */
export const idempotencyKeyHeaders = v.object({
  "Idempotency-Key": v.optional(
    v.pipe(
      keySchema,
      v.description(
        'Makes the post safe to retry (a random UUID is a good key). The same key with the same body within 24 hours answers the first answer again, with `Idempotent-Replayed: true`, and writes nothing; with another body, or while the first request still runs, 409 `idempotency_conflict`. Scoped per form and caller (anonymous callers share one scope per form). A Structured Fields string (`"…"`, as the draft writes it) is read as its content.',
      ),
    ),
  ),
});

/**
 * The request's `Idempotency-Key`, or `undefined` without one. The draft sends the key as a
 * Structured Fields string, in quotes; Stripe's clients send it bare: both are read.
 * @throws {ValidationError} 400 for a key that is empty, too long or not printable ASCII.
 */
export function idempotencyKeyOf(request: RouteRequest): string | undefined {
  const given = request.headers.get("idempotency-key");
  if (given === null) return undefined;
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(given);
  const key = quoted ? (quoted[1] ?? "").replace(/\\(["\\])/g, "$1") : given;
  return parseWith(keySchema, key, "The Idempotency-Key header is not valid");
}

/** The answer of an idempotent request; a replay carries `Idempotent-Replayed: true`. */
export function idempotentAnswer(request: RouteRequest, { answer, replayed }: Answered<unknown>) {
  if (!replayed) return answer;
  const headers = { ...request.rateLimit, "idempotent-replayed": "true" };
  return jsonWithRequestId(200, answer, request.requestId, headers);
}
