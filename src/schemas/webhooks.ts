import * as v from "valibot";
import {
  customHeaderEntries,
  headerPairComplete,
  headerPairIssue,
} from "../domain/settings/index.ts";
import { loggedActions, webhookEvents } from "../domain/webhooks/index.ts";
import { nameSchema, pagingQuery } from "./common.ts";

const url = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.maxLength(2048),
  v.url("must be a URL"),
  v.regex(/^https?:\/\//i, "must be http or https"),
);

/**
 * W2's `events` (extension, docs/design.md §7): which of the events a webhook is called for,
 * each at most once; absent means a new submission only, as before there was a choice.
 */
const eventsSchema = v.pipe(
  v.array(v.picklist(webhookEvents, `must each be one of ${webhookEvents.join(", ")}`)),
  v.minLength(1, "must name at least one event"),
  v.check((events) => new Set(events).size === events.length, "must name each event once"),
  v.description(
    "Extension: the events the webhook is called for; `form_submission.created` when absent.",
  ),
);

/** Body of W2 (docs/design.md §4); `webhook_url` is accepted for `webhook_destination_url`. */
export const webhookBody = v.pipe(
  v.object({
    webhook_name: nameSchema,
    webhook_destination_url: v.optional(url),
    webhook_url: v.optional(url),
    ...customHeaderEntries,
    events: v.optional(eventsSchema),
  }),
  v.forward(
    v.check(
      (body) => Boolean(body.webhook_destination_url ?? body.webhook_url),
      "is required (or webhook_url)",
    ),
    ["webhook_destination_url"],
  ),
  v.forward(
    v.check((body) => headerPairComplete(body), headerPairIssue),
    ["http_header_key"],
  ),
  // The two checks above, as JSON Schema states them for the OpenAPI document.
  v.metadata({
    allOf: [
      { anyOf: [{ required: ["webhook_destination_url"] }, { required: ["webhook_url"] }] },
      {
        anyOf: [
          { properties: { http_header_key: { const: "" }, http_header_value: { const: "" } } },
          {
            required: ["http_header_key", "http_header_value"],
            properties: { http_header_key: { minLength: 1 }, http_header_value: { minLength: 1 } },
          },
        ],
      },
    ],
    description:
      "`webhook_destination_url` or its alias `webhook_url` is required; `http_header_key` and `http_header_value` go both or neither. The destination must resolve to a public address unless the service allows private ones.",
  }),
);

/** Query of the deliveries list (extension). */
export const deliveriesQuery = pagingQuery(50);

/** The `action` path parameter of the action deliveries list (extension). */
export const actionParam = v.picklist(loggedActions, "must be email or destination");
