import type { Destinations } from "../ports/destinations.ts";
import { type Mailer, MailRejectedError } from "../ports/mailer.ts";
import type { AttemptOutcome, WebhookSender } from "../ports/webhook-sender.ts";
import type { DeliveryKind, DeliveryOutcome, ServiceMetrics } from "./service-metrics.ts";

/** What an attempt came to, as `formwork_delivery_attempts_total` labels it. */
function outcomeOf(outcome: AttemptOutcome): DeliveryOutcome {
  if (outcome.kind !== "response") return outcome.kind;
  return outcome.status >= 200 && outcome.status < 300 ? "delivered" : "http_error";
}

/**
 * `sender` with each attempt it makes counted by kind and outcome (docs/design.md §10), as
 * `afterAttempt` of its control hears it: a message with a secret is a webhook's, one
 * without a destination post's (as the trace decorator tells them).
 */
export function measuredSender(sender: WebhookSender, metrics: ServiceMetrics): WebhookSender {
  return {
    deliver(message, control) {
      const kind: DeliveryKind = message.secret ? "webhook" : "destination";
      return sender.deliver(message, {
        attemptsMade: control.attemptsMade,
        signal: control.signal,
        beforeAttempt: (attempt) => control.beforeAttempt(attempt),
        afterAttempt(attempt, outcome) {
          metrics.delivery(kind, outcomeOf(outcome));
          return control.afterAttempt(attempt, outcome);
        },
      });
    },
  };
}

/** `destinations` with each post counted; a post that throws counts as `error`. */
export function measuredDestinations(
  destinations: Destinations,
  metrics: ServiceMetrics,
): Destinations {
  return {
    problem: (url) => destinations.problem(url),
    async post(message, options) {
      try {
        const outcome = await destinations.post(message, options);
        metrics.delivery("destination", outcomeOf(outcome));
        return outcome;
      } catch (error) {
        metrics.delivery("destination", "error");
        throw error;
      }
    },
  };
}

/** `mailer` with each e-mail counted: `delivered`, `refused` by the server, or `network_error`. */
export function measuredMailer(mailer: Mailer, metrics: ServiceMetrics): Mailer {
  return {
    async send(message) {
      try {
        await mailer.send(message);
        metrics.delivery("email", "delivered");
      } catch (error) {
        const outcome = error instanceof MailRejectedError ? "refused" : "network_error";
        metrics.delivery("email", outcome);
        throw error;
      }
    },
  };
}
