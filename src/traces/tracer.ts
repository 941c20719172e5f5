/**
 * The service's tracer (docs/design.md §10, traces): spans through `@opentelemetry/api`
 * only. The package installs no SDK: until the embedder registers a tracer provider, every
 * span is the API's no-op one and nothing is recorded or exported.
 */
import { type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { packageVersion } from "../kernel/package-version.ts";

/**
 * The tracer `formwork` of the global provider. Taken once per service: it follows a
 * provider the embedder registers later, as the API's proxy tracer does.
 */
export function serviceTracer(): Tracer {
  return trace.getTracer("formwork", packageVersion);
}

/**
 * Marks `span` failed by `error`: its class name as `error.type`, never its message (which
 * may quote a value or an address).
 */
export function spanFailed(span: Span, error: unknown) {
  span.setAttribute("error.type", error instanceof Error ? error.name : "unknown");
  span.setStatus({ code: SpanStatusCode.ERROR });
}
