import { type Span, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { Destinations } from "../ports/destinations.ts";
import { type Mailer, MailRejectedError } from "../ports/mailer.ts";
import type {
  AttemptOutcome,
  DeliveryControl,
  WebhookMessage,
  WebhookSender,
} from "../ports/webhook-sender.ts";
import { spanFailed } from "./tracer.ts";

/** What a delivery attempt delivers (docs/design.md §10). */
type DeliveryKind = "webhook" | "destination" | "email";

/**
 * A CLIENT span `deliver <kind>` for one attempt: `formwork.delivery.kind`, and
 * `server.address` (the host alone: never the path, the query or a secret).
 */
function startAttempt(tracer: Tracer, kind: DeliveryKind, url?: string): Span {
  const attributes: Record<string, string> = { "formwork.delivery.kind": kind };
  if (url) attributes["server.address"] = new URL(url).hostname;
  return tracer.startSpan(`deliver ${kind}`, { kind: SpanKind.CLIENT, attributes });
}

/**
 * Ends an attempt's span with what it came to: `formwork.delivery.outcome` (the attempt's
 * kind: `response`, `network_error`, `timeout`, `refused`), the status of a response, and a
 * failure unless a 2xx answered.
 */
function endAttempt(span: Span, outcome: AttemptOutcome) {
  span.setAttribute("formwork.delivery.outcome", outcome.kind);
  if (outcome.kind === "response") span.setAttribute("http.response.status_code", outcome.status);
  const delivered = outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
  if (!delivered) {
    span.setAttribute(
      "error.type",
      outcome.kind === "response" ? String(outcome.status) : outcome.kind,
    );
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * `sender` with a span for each attempt of each delivery, as `control` sees it: begun once
 * `beforeAttempt` lets it go, ended by `afterAttempt`. A message with a secret is a webhook's,
 * one without a destination post's.
 */
export function tracedSender(sender: WebhookSender, tracer: Tracer): WebhookSender {
  return {
    deliver(message: WebhookMessage, control: DeliveryControl) {
      const kind = message.secret ? "webhook" : "destination";
      const attempts = new Map<number, Span>();
      return sender.deliver(message, {
        attemptsMade: control.attemptsMade,
        signal: control.signal,
        async beforeAttempt(attempt) {
          const go = await control.beforeAttempt(attempt);
          if (go) {
            const span = startAttempt(tracer, kind, message.url);
            span.setAttribute("formwork.delivery.attempt", attempt);
            attempts.set(attempt, span);
          }
          return go;
        },
        afterAttempt(attempt, outcome) {
          const span = attempts.get(attempt);
          attempts.delete(attempt);
          if (span) endAttempt(span, outcome);
          return control.afterAttempt(attempt, outcome);
        },
      });
    },
  };
}

/** `destinations` with a span for each destination post it makes. */
export function tracedDestinations(destinations: Destinations, tracer: Tracer): Destinations {
  return {
    problem: (url) => destinations.problem(url),
    async post(message, options) {
      const span = startAttempt(tracer, "destination", message.url);
      try {
        const outcome = await destinations.post(message, options);
        endAttempt(span, outcome);
        return outcome;
      } catch (error) {
        spanFailed(span, error);
        span.end();
        throw error;
      }
    },
  };
}

/** `mailer` with a span for each e-mail it sends; never a recipient, subject or text. */
export function tracedMailer(mailer: Mailer, tracer: Tracer): Mailer {
  return {
    async send(message) {
      const span = startAttempt(tracer, "email");
      try {
        await mailer.send(message);
        span.setAttribute("formwork.delivery.outcome", "response");
        span.end();
      } catch (error) {
        const outcome = error instanceof MailRejectedError ? "refused" : "network_error";
        span.setAttribute("formwork.delivery.outcome", outcome);
        spanFailed(span, error);
        span.end();
        throw error;
      }
    },
  };
}
