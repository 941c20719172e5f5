import * as v from "valibot";
import type { Operation } from "./operation.ts";

const readiness = {
  name: "Readiness",
  schema: v.strictObject({
    status: v.picklist(["ready", "unavailable", "stopping"]),
    failed: v.pipe(
      v.array(v.string()),
      v.description("The parts that failed: `store`, `blobs`, `worker`, or an embedder's check."),
    ),
  }),
};

/**
 * Liveness and readiness (docs/design.md §10), answered by the service before anything else
 * (`probes.ts`): documented here, served by no route.
 */
export const probeOperations: Operation[] = [
  {
    method: "get",
    path: "/healthz",
    operationId: "health",
    ref: "extension",
    summary: "Liveness",
    description:
      "200 while the process serves, during a stop too. No credentials, no rate limit, no log line.",
    tag: "Pages",
    auth: "none",
    response: {
      description: "The process serves.",
      schema: { name: "Health", schema: v.strictObject({ status: v.literal("ok") }) },
    },
    failures: [],
    beforeRouter: "service",
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "readiness",
    ref: "extension",
    summary: "Readiness",
    description:
      "200 when the store and the blob store answer a cheap read within a short time and the webhook worker runs; 503 naming the parts that failed, with no detail, and 503 `stopping` at once when a stop begins. No credentials, no rate limit, no log line.",
    tag: "Pages",
    auth: "none",
    response: { description: "The service can serve.", schema: readiness },
    failures: [],
    alsoAnswers: { status: 503, description: "A part failed, or a stop began.", schema: readiness },
    beforeRouter: "service",
  },
];
