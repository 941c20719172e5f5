import type { openApiDocument } from "../openapi/document.ts";
import * as answers from "../schemas/answers.ts";
import type { RouteOperation } from "./operation.ts";

/** The OpenAPI 3.1 document (extension) at `/openapi.json`. */
export const openApiOperation: RouteOperation = {
  method: "get",
  path: "/openapi.json",
  operationId: "openApiDocument",
  ref: "extension",
  summary: "This document",
  tag: "Pages",
  auth: "none",
  response: {
    description: "The OpenAPI 3.1 document of the service.",
    schema: { name: "OpenApiDocument", schema: answers.openApiAnswer },
  },
  handler: (_request, _ctx, env) => env.openApiDocument(),
};

/**
 * The document of `operations` served under `basePath`, built once on first call; its code
 * (and the JSON Schema converter behind it) loads then too, not when the service starts.
 */
export function lazyOpenApiDocument(
  basePath: string,
  operations: readonly RouteOperation[],
): () => Promise<ReturnType<typeof openApiDocument>> {
  let document: Promise<ReturnType<typeof openApiDocument>> | undefined;
  return () => {
    document ??= import("../openapi/document.ts").then((module) =>
      module.openApiDocument(basePath, operations),
    );
    return document;
  };
}
