/**
 * The failure answers of each operation, one response per status (docs/design.md §8): the
 * envelope whose `error` is one of that status's codes, `issues` with a 400, and S2's
 * `actionSuccessful: false`. The hosted page answers its own failures as pages.
 */
import * as v from "valibot";
import { type ErrorCode, errorStatus } from "../kernel/errors.ts";
import type { SchemaObject } from "./json-schema.ts";
import { failureStatuses, type NamedSchema, type Operation } from "./operation.ts";

const errorCodes = Object.keys(errorStatus) as ErrorCode[];

const issues = v.array(v.strictObject({ path: v.string(), message: v.string() }));

const whenStatus: Record<number, string> = {
  400: "Malformed JSON, failed validation or bad query values; `issues` says where.",
  401: "Credentials are missing, unknown or expired.",
  403: "Not allowed; a quota is used up; the form is disabled or closed.",
  404: "No such record, or one the caller may not see.",
  409: "A duplicate, or the record changed under this request; try again. `idempotency_conflict`: the Idempotency-Key was used with another body, or its first request still runs.",
  413: "The body or the file is over its limit.",
  415: "The body is not of the content type the operation reads.",
  429: "Over a rate limit; `Retry-After` says when to come back.",
  500: "An unexpected fault of the service, logged on its side; the answer holds no detail.",
  503: "The service is stopping, or its store is unreachable; nothing was changed.",
};

/** The failure envelope answered with `status`, as S2 answers it when `submission`. */
export function failureSchema(status: number, submission = false): NamedSchema {
  const codes = errorCodes.filter((code) => errorStatus[code] === status);
  return {
    name: `${submission ? "SubmissionFailure" : "Failure"}${status}`,
    schema: v.strictObject(entriesOf(codes, status, submission)),
  };
}

function entriesOf(codes: ErrorCode[], status: number, submission: boolean): v.ObjectEntries {
  return {
    id: v.literal(""),
    message: v.string(),
    action_successful: v.literal(false),
    error: v.picklist(codes),
    ...(status === 400 ? { issues } : {}),
    // S2 reports its outcome in camel case as well (interface, Errors).
    ...(submission ? { actionSuccessful: v.literal(false) } : {}),
  };
}

const retryAfter = {
  description: "Seconds until the allowance is back.",
  required: true,
  schema: { type: "string", pattern: "^\\d+$" },
};

/** Failures the hosted page answers as pages; the others come before it, as JSON. */
const pageStatuses: Record<number, ("html" | "json")[]> = {
  400: ["html"],
  401: ["html", "json"],
  403: ["html"],
  404: ["html"],
  429: ["json"],
  500: ["json"],
  503: ["html", "json"],
};

/** The failure responses of `operation`, by status. */
export function failureResponses(
  operation: Operation,
  ref: (named: NamedSchema) => SchemaObject,
): Record<string, SchemaObject> {
  const submission = operation.operationId === "postSubmission";
  const responses: Record<string, SchemaObject> = {};
  const page = operation.response.schema === "html";
  for (const status of page ? Object.keys(pageStatuses).map(Number) : failureStatuses(operation)) {
    const kinds = page ? (pageStatuses[status] ?? []) : ["json"];
    const content: SchemaObject = {};
    if (kinds.includes("html")) content["text/html"] = { schema: { type: "string" } };
    if (kinds.includes("json"))
      content["application/json"] = { schema: ref(failureSchema(status, submission)) };
    responses[status] = {
      description: whenStatus[status] ?? "A failure.",
      ...(status === 429 ? { headers: { "Retry-After": retryAfter } } : {}),
      content,
    };
  }
  return responses;
}
