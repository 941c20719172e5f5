import type { IRequestStrict, RouterType } from "itty-router";
import type { Caller, PartnerRecord } from "../domain/accounts/index.ts";
import type { AuditSource } from "../domain/audit/index.ts";
import type { Context } from "../domain/context.ts";
import { UnauthorizedError } from "../kernel/errors.ts";
import { parseGuid } from "../kernel/ids.ts";

/** A request as route handlers see it. */
export interface RouteRequest extends IRequestStrict {
  /** Who is calling; `null` when the request carries no credentials. */
  caller: Caller | null;
  /** The client's address, as the embedder reported it (or the trusted proxy header). */
  clientAddress: string;
  /** The body as the host received it, if it passed it (`ConnectionInfo.body`). */
  hostBody?: AsyncIterable<Uint8Array>;
  /** The request's id in the logs, echoed as `X-Request-Id`. */
  requestId: string;
  /** The partner of a partner route, once authenticated by the rate-limit stage. */
  partner?: PartnerRecord;
  /** The partner whose customer login token authenticated the caller (P2), if any. */
  tokenPartnerId?: string;
  /** The `RateLimit-*` headers of the allowance this request drew on, if any. */
  rateLimit?: Record<string, string>;
}

/** The router every section's routes are added to. */
export type ServiceRouter = RouterType<RouteRequest, [Context]>;

/** The success envelope of most write endpoints. */
export function envelope(id: string, message: string) {
  return { id, message, action_successful: true, error: "" };
}

/**
 * The signed-in caller of a restricted route.
 * @throws {UnauthorizedError} when the request carries no credentials.
 */
export function callerOf(request: RouteRequest): Caller {
  if (!request.caller) throw new UnauthorizedError();
  return request.caller;
}

/**
 * Who makes the request and from where, for the audit trail (docs/design.md §25): the
 * signed-in caller's user id; a partner's id when a partner calls with its own credentials,
 * or acts as its customer with a customer login token (then `on_behalf_of` is the customer).
 * @throws {UnauthorizedError} when the request carries no credentials.
 */
export function auditSourceOf(request: RouteRequest): AuditSource {
  const where = { client_address: request.clientAddress, request_id: request.requestId };
  if (request.partner && !request.caller)
    return { actor: `partner:${request.partner.id}`, ...where };
  const caller = callerOf(request);
  if (request.tokenPartnerId === undefined) return { actor: caller.userId, ...where };
  return { actor: `partner:${request.tokenPartnerId}`, on_behalf_of: caller.userId, ...where };
}

/**
 * The path of a request's URL, as `new URL(url).pathname` reads it, without parsing the URL
 * on every request (hot path): `Request.url` is always the serialized URL, whose path starts
 * at the first `/` after the scheme's `//` and ends at its query or fragment.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return new URL(url).pathname;
  let end = url.indexOf("?", start);
  const hash = url.indexOf("#", start);
  if (hash >= 0 && (end < 0 || hash < end)) end = hash;
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** The request's URL, for its query flags. */
export function urlOf(request: RouteRequest): URL {
  return new URL(request.url);
}

/**
 * A GUID path parameter, braces and upper case accepted (docs/design.md §9).
 * @throws {ValidationError} naming the parameter when it is not a GUID.
 */
export function guidParam(request: RouteRequest, name: string): string {
  return parseGuid(request.params[name], name);
}
