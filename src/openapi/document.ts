import { systemNamePattern } from "../domain/forms/index.ts";
import { packageVersion } from "../kernel/package-version.ts";
import { guidPathSchema } from "../schemas/common.ts";
import { downloadOperations } from "./downloads.ts";
import { failureResponses } from "./failures.ts";
import { jsonSchemaOf, parametersOf, type SchemaObject } from "./json-schema.ts";
import { type NamedSchema, type Operation, openApiPath, pathParameterNames } from "./operation.ts";
import { probeOperations } from "./probes.ts";
import { securityOf, securitySchemes } from "./security.ts";

/** The version of the package, given as the document's `info.version`. */
export { packageVersion };

const tags = [
  { name: "Partner", description: "P1–P5: a partner platform's customers." },
  { name: "Forms", description: "F1–F5, with create and whole update (extensions)." },
  { name: "Form users", description: "U1–U4: roles on a form." },
  { name: "Datalists", description: "D1–D7: reference lists and their entry items." },
  { name: "Submissions", description: "S1–S7: submissions and their attachments." },
  { name: "Webhooks", description: "W1–W3, with the deliveries extension." },
  { name: "Audit", description: "Who read or changed a form's submissions (extension)." },
  { name: "Admin", description: "Accounts, tokens and partners (extension)." },
  { name: "Pages", description: "The hosted form page and this document (extensions)." },
];

/**
 * The OpenAPI 3.1 document of the service mounted at `basePath`, built from the operations
 * its router serves (`routes/operations.ts`), with the valibot schemas they parse with, and
 * the blob store's downloads and the probes. Operations are listed by tag, in the order of `tags`, and in
 * the order given within a tag; `components.schemas` in the order they are first referred to.
 */
export function openApiDocument(basePath: string, routed: readonly Operation[]): SchemaObject {
  const schemas: Record<string, SchemaObject> = {};
  const ref = (named: NamedSchema) => {
    schemas[named.name] ??= jsonSchemaOf(named.schema);
    return { $ref: `#/components/schemas/${named.name}` };
  };
  const paths: Record<string, Record<string, SchemaObject>> = {};
  for (const operation of byTag([...routed, ...downloadOperations, ...probeOperations])) {
    const path = openApiPath(operation.documentPath ?? operation.path);
    paths[path] ??= {};
    paths[path][operation.method] = operationObject(operation, ref);
  }
  // A copy: the tables above stay untouched whatever the caller does with the document.
  return structuredClone({
    openapi: "3.1.1",
    info: {
      title: "Formwork",
      version: packageVersion,
      description:
        "The HTTP interface of an embeddable form service. Failures answer a real HTTP status " +
        "with the `Failure` envelope.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    // Relative to where this document is served: `<basePath>/openapi.json`.
    servers: [{ url: basePath || "/" }],
    tags,
    paths,
    components: { schemas, securitySchemes },
  });
}

/** `operations` sorted by their tag's place in `tags`; stable, so each tag keeps its order. */
function byTag(operations: readonly Operation[]): Operation[] {
  const place = new Map(tags.map(({ name }, index) => [name, index]));
  const placeOf = (operation: Operation) => place.get(operation.tag) ?? tags.length;
  return [...operations].sort((a, b) => placeOf(a) - placeOf(b));
}

function operationObject(
  operation: Operation,
  ref: (named: NamedSchema) => SchemaObject,
): SchemaObject {
  const parameters = [
    ...pathParameterNames(operation.documentPath ?? operation.path).map((name) => ({
      name,
      in: "path",
      required: true,
      ...(operation.pathDescriptions?.[name]
        ? { description: operation.pathDescriptions[name] }
        : {}),
      schema: jsonSchemaOf(operation.pathSchemas?.[name] ?? guidPathSchema),
    })),
    ...(operation.query ? parametersOf(operation.query, "query", operation.queryDescriptions) : []),
    ...(operation.headers ? parametersOf(operation.headers, "header") : []),
  ];
  const { response } = operation;
  return {
    operationId: operation.operationId,
    summary:
      operation.ref === "extension" ? operation.summary : `${operation.ref}: ${operation.summary}`,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [operation.tag],
    "x-interface": operation.ref,
    // Served before the router: the route table does not list it.
    ...(operation.beforeRouter ? { "x-served-by": operation.beforeRouter } : {}),
    security: securityOf[operation.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body ? { requestBody: requestBody(operation.body, ref) } : {}),
    responses: {
      "200": { description: response.description, content: successContent(response.schema, ref) },
      ...failureResponses(operation, ref),
      ...(operation.alsoAnswers
        ? {
            [operation.alsoAnswers.status]: {
              description: operation.alsoAnswers.description,
              content: { "application/json": { schema: ref(operation.alsoAnswers.schema) } },
            },
          }
        : {}),
    },
  };
}

function successContent(
  schema: Operation["response"]["schema"],
  ref: (named: NamedSchema) => SchemaObject,
): SchemaObject {
  const text = { schema: { type: "string" } };
  if (schema === "html") return { "text/html": text };
  if (schema === "export") return { "text/csv": text, "application/x-ndjson": text };
  if (schema === "ndjson") return { "application/x-ndjson": text };
  // A file, of the type it was uploaded with (`application/octet-stream` when unfit).
  if (schema === "download") return { "*/*": { schema: {} } };
  return { "application/json": { schema: ref(schema) } };
}

function requestBody(
  body: NonNullable<Operation["body"]>,
  ref: (named: NamedSchema) => SchemaObject,
): SchemaObject {
  if ("multipart" in body) {
    const file = { type: "string", contentMediaType: "application/octet-stream" };
    const schema = {
      type: "object",
      // One file part, named after a file field of the form: a system name.
      propertyNames: { pattern: systemNamePattern.source },
      minProperties: 1,
      maxProperties: 1,
      additionalProperties: file,
    };
    return {
      required: true,
      description: body.multipart,
      content: { "multipart/form-data": { schema } },
    };
  }
  return { required: body.required, content: { "application/json": { schema: ref(body.json) } } };
}
