import { answerJson } from "../kernel/json-texts.ts";

/**
 * Request ids: each request gets one, written on its log lines and echoed in the
 * `X-Request-Id` response header, so that a client's report can be matched to the logs.
 */

/** 1 to 128 letters, digits and `_.:-`: the ids of proxies and tracers (UUIDs, `abc:1.2`). */
const plainId = /^[\w.:-]{1,128}$/;

/**
 * The id of `request`: the `X-Request-Id` it came with when that is short and plain (a
 * proxy in front or the client chose it, and keeping it ties their logs to ours); otherwise,
 * or when absent, a new random UUID. A long or odd value is replaced rather than trimmed, so
 * that nothing a client sends reaches the logs unchecked.
 */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && plainId.test(given) ? given : crypto.randomUUID();
}

/**
 * Marks responses built with their `X-Request-Id` already in place ({@link jsonWithRequestId}):
 * a field on the response, cheaper per request than a `WeakSet` entry the GC must track.
 */
const identified = Symbol("formwork.identified");

type Marked = Response & { [identified]?: true };

const jsonType = "application/json; charset=utf-8";

/**
 * A JSON response carrying `X-Request-Id: id` and `extra` headers from the start. Headers
 * given as a plain object reach the host as they are: `@hono/node-server` then writes them
 * without building a `Headers` object, which setting one afterwards would (hot path).
 */
export function jsonWithRequestId(
  status: number,
  body: unknown,
  id: string,
  extra?: Record<string, string>,
): Response {
  // Without a spread when there is nothing to add: the common answer's literal stays fast.
  const headers = extra
    ? { "content-type": jsonType, ...extra, "x-request-id": id }
    : { "content-type": jsonType, "x-request-id": id };
  const response = new Response(answerJson(body), { status, headers });
  (response as Marked)[identified] = true;
  return response;
}

/** `response` with `X-Request-Id: id`, copied first when its headers are read-only. */
export function withRequestId(response: Response, id: string): Response {
  if ((response as Marked)[identified]) return response;
  try {
    response.headers.set("x-request-id", id);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("x-request-id", id);
    return copy;
  }
}
