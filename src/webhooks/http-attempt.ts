import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { Webhook } from "standardwebhooks";
import type { AttemptOutcome, WebhookMessage } from "../ports/webhook-sender.ts";
import { publicOnlyLookup } from "./destination-guard.ts";
import { isPublicAddress } from "./public-addresses.ts";

/**
 * Kept-alive connections, one pool per kind of destination: a connection opened for a
 * service that allows private destinations is never reused by one that does not, since the
 * guard (`publicOnlyLookup`) runs when a connection is opened, not when it is reused.
 */
const agents = { private: pool(), public: pool() };

/**
 * Agents that keep connections; an idle one closes after 4 s, before a Node receiver's
 * default 5 s keep-alive ends it, so an attempt seldom meets a connection reset under it.
 */
function pool() {
  const options = { keepAlive: true, timeout: 4000 };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}

/** How one attempt is made. */
export interface AttemptOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  signal: AbortSignal;
}

/**
 * Makes one signed `POST` of a message. The signature is made afresh for the attempt (a
 * retry hours later must not carry a timestamp receivers reject as stale); the id stays.
 * The outcome is known as soon as the status line arrives; the body is then read and
 * dropped so that the connection can serve the next attempt (kept alive), unless the
 * attempt's time runs out first.
 */
export function attemptDelivery(
  message: WebhookMessage,
  options: AttemptOptions,
): Promise<AttemptOutcome> {
  const url = new URL(message.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve({ kind: "refused", message: `${host} is not a public address` });
  }
  const now = new Date();
  const headers: Record<string, string> = {
    ...message.headers,
    "content-type": "application/json",
    "user-agent": "formwork-webhooks/1",
    "webhook-id": message.id,
  };
  if (message.secret) {
    headers["webhook-timestamp"] = String(Math.floor(now.getTime() / 1000));
    headers["webhook-signature"] = new Webhook(message.secret).sign(
      message.id,
      now,
      message.payload,
    );
  }
  const { signal } = options;
  const https = url.protocol === "https:";
  const send = https ? httpsRequest : httpRequest;
  const pool = options.allowPrivate ? agents.private : agents.public;
  return new Promise((resolve) => {
    let request: ReturnType<typeof send>;
    try {
      request = send(url, {
        method: "POST",
        headers,
        agent: https ? pool.https : pool.http,
        lookup: options.allowPrivate ? undefined : publicOnlyLookup,
      });
    } catch (error) {
      // Node refuses to make the request at all (a header it will not send, say): no retry
      // can help, and the delivery log must say why.
      const reason = error instanceof Error ? error.message : String(error);
      resolve({ kind: "refused", message: `the request could not be made: ${reason}` });
      return;
    }
    // Neither the request's `signal` option nor `AbortSignal.timeout`: the abort and the
    // timer end with the exchange, or they would later destroy a connection back in the
    // pool (and a timer per attempt would fire, long after, for nothing).
    let timedOut = false;
    const abort = () => request.destroy(new Error("aborted"));
    const timer = setTimeout(() => {
      timedOut = true;
      abort();
    }, options.timeoutMs);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", abort);
    };
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
    request.on("response", (response) => {
      resolve({ kind: "response", status: response.statusCode ?? 0 });
      response.on("error", () => {});
      response.on("close", done);
      response.resume();
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      done();
      if (timedOut) resolve({ kind: "timeout" });
      else if (error.code === "EWEBHOOKPRIVATE")
        resolve({ kind: "refused", message: error.message });
      else resolve({ kind: "network_error", message: error.code ?? error.message });
    });
    request.end(message.payload);
  });
}
