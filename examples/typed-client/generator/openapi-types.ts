/**
 * openapi-typescript, run from this folder: an npm workspace whose own `node_modules` holds
 * openapi-typescript beside the TypeScript 5 it needs (its compiler API prints the types),
 * while the project compiles with TypeScript 7, which has no JavaScript API.
 */
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";

/** The TypeScript types of an OpenAPI 3 document, as source text. */
export async function openApiTypes(document: object): Promise<string> {
  return astToString(
    await openapiTS(document as OpenAPI3, {
      silent: true,
      // A field with a default may be left out of a request: keep it optional.
      defaultNonNullable: false,
    }),
  );
}
