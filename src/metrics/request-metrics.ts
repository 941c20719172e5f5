import { methodName } from "../kernel/http-methods.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/**
 * Runs `answer` and records it in `formwork_http_request_duration_seconds` by method, route
 * pattern and status (docs/design.md §10): `routeOf` gives the pattern, or `null` when no
 * route matched (then `(unknown)`: the raw path is never a label). A request that throws
 * (the embedder's fault handler answers it) counts as status 500.
 */
export async function measureRequest(
  metrics: ServiceMetrics,
  request: Request,
  routeOf: (request: Request) => string | null,
  answer: () => Promise<Response>,
): Promise<Response> {
  const started = performance.now();
  let status = 500;
  try {
    const response = await answer();
    status = response.status;
    return response;
  } finally {
    const seconds = (performance.now() - started) / 1000;
    metrics.request(methodName(request.method), routeOf(request) ?? "(unknown)", status, seconds);
  }
}
