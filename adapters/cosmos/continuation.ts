/**
 * The store's continuation tokens: the SDK's own token, wrapped with a digest of the query
 * it belongs to. Cosmos DB's tokens of an ORDER BY query carry the last order-by values and
 * resource id, so a page resumes after the last item returned even when items were inserted
 * in between. The wrapper lets the store refuse a token it did not issue, or one issued for
 * another query or partition, instead of handing it to Cosmos DB (the emulator silently
 * restarts from the first page on a token it cannot parse).
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { SqlQuerySpec } from "@azure/cosmos";
import { StoreContinuationError } from "formwork/ports";

const version = "c1";

/** A digest of everything that decides which items a query returns, in which order. */
export function queryDigest(spec: SqlQuerySpec): string {
  return createHash("sha256")
    .update(JSON.stringify([spec.query, spec.parameters ?? []]))
    .digest("base64url")
    .slice(0, 22);
}

/** The token the store hands out for the SDK's token `sdkToken` of query `spec`. */
export function wrapContinuation(sdkToken: string, spec: SqlQuerySpec): string {
  const body = JSON.stringify({ q: queryDigest(spec), t: sdkToken });
  return `${version}.${Buffer.from(body, "utf8").toString("base64url")}`;
}

/**
 * The SDK's token inside `token`, checked against query `spec`.
 * @throws {StoreContinuationError} for a token that is malformed or belongs to another query
 */
export function unwrapContinuation(token: string, spec: SqlQuerySpec): string {
  const [prefix, body, ...rest] = token.split(".");
  if (prefix !== version || !body || rest.length > 0) throw new StoreContinuationError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch (cause) {
    throw new StoreContinuationError(undefined, { cause });
  }
  const { q, t } = (parsed ?? {}) as { q?: unknown; t?: unknown };
  if (q !== queryDigest(spec) || typeof t !== "string" || t === "") {
    throw new StoreContinuationError();
  }
  return t;
}
