import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { Webhook } from "standardwebhooks";
import type { AttemptOutcome, WebhookMessage } from "../ports/webhook-sender.ts";
import { isPublicAddress, publicOnlyLookup } from "./destination-guard.ts";

/** How one attempt is made. */
export interface AttemptOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  signal: AbortSignal;
}

/**
 * Makes one signed `POST` of a message. The signature is made afresh for the attempt (a
 * retry hours later must not carry a timestamp receivers reject as stale); the id stays.
 * The outcome is known as soon as the status line arrives; the body is not waited for.
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
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([timeout, options.signal]);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let request: ReturnType<typeof send>;
    try {
      request = send(url, {
        method: "POST",
        headers,
        signal,
        lookup: options.allowPrivate ? undefined : publicOnlyLookup,
      });
    } catch (error) {
      // Node refuses to make the request at all (a header it will not send, say): no retry
      // can help, and the delivery log must say why.
      const reason = error instanceof Error ? error.message : String(error);
      resolve({ kind: "refused", message: `the request could not be made: ${reason}` });
      return;
    }
    request.on("response", (response) => {
      response.resume();
      response.on("error", () => {});
      resolve({ kind: "response", status: response.statusCode ?? 0 });
      request.destroy();
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (timeout.aborted) resolve({ kind: "timeout" });
      else if (error.code === "EWEBHOOKPRIVATE")
        resolve({ kind: "refused", message: error.message });
      else resolve({ kind: "network_error", message: error.code ?? error.message });
    });
    request.end(message.payload);
  });
}
