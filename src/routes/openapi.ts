import type { ServiceRouter } from "../http/route-request.ts";
import { openApiDocument } from "../openapi/document.ts";

/** The OpenAPI 3.1 document (extension) at `/openapi.json`, built once on first request. */
export function openApiRoutes(router: ServiceRouter, basePath: string): void {
  let document: ReturnType<typeof openApiDocument> | undefined;
  router.get("/openapi.json", () => {
    document ??= openApiDocument(basePath);
    return document;
  });
}
