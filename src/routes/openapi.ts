import type { openApiDocument } from "../openapi/document.ts";
import type { ServiceRouter } from "./route-request.ts";

/**
 * The OpenAPI 3.1 document (extension) at `/openapi.json`, built once on first request; its
 * code (and the JSON Schema converter behind it) loads then too, not when the service starts.
 */
export function openApiRoutes(router: ServiceRouter, basePath: string): void {
  let document: Promise<ReturnType<typeof openApiDocument>> | undefined;
  router.get("/openapi.json", () => {
    document ??= import("../openapi/document.ts").then((module) =>
      module.openApiDocument(basePath),
    );
    return document;
  });
}
