import { context, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { methodName } from "../kernel/http-methods.ts";
import { spanFailed } from "./tracer.ts";

/**
 * Runs `answer` inside a SERVER span, active so that the store calls and deliveries it makes
 * are its children. The span is named `<METHOD> <route pattern>` once answered, with
 * `http.request.method`, `http.route` and `http.response.status_code`, and fails on a 5xx
 * (docs/design.md §10). It holds no path, query, header or body: `routeOf` gives the route
 * pattern, or `null` when no route matched (the span is then named by the method alone).
 */
export function traceRequest(
  tracer: Tracer,
  request: Request,
  routeOf: (request: Request) => string | null,
  answer: () => Promise<Response>,
): Promise<Response> {
  const method = methodName(request.method);
  const options = { kind: SpanKind.SERVER, attributes: { "http.request.method": method } };
  const span = tracer.startSpan(method, options);
  // No provider: no context to enter and nothing to end, so no cost beyond the no-op span.
  if (!span.isRecording()) return answer();
  return context.with(trace.setSpan(context.active(), span), async () => {
    try {
      const response = await answer();
      const route = routeOf(request);
      if (route !== null) {
        span.updateName(`${method} ${route}`);
        span.setAttribute("http.route", route);
      }
      span.setAttribute("http.response.status_code", response.status);
      if (response.status >= 500) {
        span.setAttribute("error.type", String(response.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return response;
    } catch (error) {
      spanFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}
