/**
 * Every answer a test gets through `service.fetch` is checked against the service's own
 * OpenAPI document (docs/design.md §20): its status must be one the operation documents, its
 * content type one documented for that status, and a JSON body must validate against that
 * status's schema (ajv, JSON Schema 2020-12). The document and each schema are compiled once per
 * process. A request that names no operation must get the 404 or 405 of docs/design.md §8.
 */
import { AssertionError } from "node:assert";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FormService } from "../../src/index.ts";
import { openApiDocument } from "../../src/openapi/document.ts";
import { failureSchema } from "../../src/openapi/failures.ts";
import { jsonSchemaOf } from "../../src/openapi/json-schema.ts";
import { operations } from "../../src/routes/operations.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as arbitrary JSON.
type Json = any;

/** The document the answers are checked against: the service's, at the root. */
export const document: Json = openApiDocument("", operations);
const ajv = new Ajv2020({ allErrors: true, strict: false });
// `addFormats` is a CommonJS default export: its ES module face differs between loaders.
((addFormats as Json).default ?? addFormats)(ajv);
ajv.addSchema(document, "openapi");

/** One documented operation, with a pattern that matches its paths. */
interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Json;
}

const routes: Route[] = Object.entries<Json>(document.paths).flatMap(([template, item]) =>
  Object.entries<Json>(item).map(([method, operation]) => ({
    method: method.toUpperCase(),
    template,
    pattern: new RegExp(`^${withoutSlash(template).replace(/\{\w+\}/g, "[^/]+")}$`),
    operation,
  })),
);

/** The path the blob store serves its downloads under: it refuses other methods anywhere there. */
const storePaths = routes
  .filter((route) => route.operation["x-served-by"] === "blob store")
  .map((route) => route.template.slice(0, route.template.indexOf("/{")));

const compiled = new Map<string, ValidateFunction>();

/** The validator of a schema of the document, compiled on first use and kept. */
function validatorOf(key: string, schema: Json): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = schema.$ref?.startsWith("#/")
      ? ajv.compile({ $ref: `openapi${schema.$ref}` })
      : ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * Whether `value` is valid under `schema`, a schema of the document (inline, or a `$ref`
 * into its components), compiled once.
 */
export function documentAccepts(schema: Json, value: unknown): boolean {
  return validatorOf(`schema ${JSON.stringify(schema)}`, schema)(value);
}

/** The base paths of services mounted below the root, for the helpers that call them. */
const basePaths = new WeakMap<FormService, string>();

/** Records that `service` serves under `basePath`, so that its answers are matched right. */
export function mountedAt(service: FormService, basePath: string): void {
  basePaths.set(service, basePath.replace(/\/+$/, ""));
}

/**
 * `service.fetch`, with every answer checked against the document. The answer is read
 * whole and handed back as a new `Response` with the same status, headers and bytes.
 */
export function conformingFetch(service: FormService) {
  return async (request: Request, connection?: Parameters<FormService["fetch"]>[1]) => {
    const { method, url } = request;
    const response = await service.fetch(request, connection);
    const bytes = new Uint8Array(await response.arrayBuffer());
    checkAnswer(method, url, response, bytes, basePaths.get(service) ?? "");
    return new Response(method === "HEAD" || nullBody(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The global `fetch` to a service over real HTTP mounted under `basePath`, with every answer
 * checked against the document like `conformingFetch`'s.
 */
export function conformingHttpFetch(basePath: string) {
  return async (input: string | Request, init: RequestInit = {}) => {
    const method = typeof input === "string" ? (init.method ?? "GET") : input.method;
    const url = typeof input === "string" ? input : input.url;
    const response = await fetch(input, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    checkAnswer(method, url, response, bytes, basePath.replace(/\/+$/, ""));
    return new Response(method === "HEAD" || nullBody(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function nullBody(status: number): boolean {
  return status === 204 || status === 304;
}

/**
 * Checks one answer against the document.
 * @throws {AssertionError} saying what breaks it.
 */
export function checkAnswer(
  method: string,
  url: string,
  response: Response,
  bytes: Uint8Array,
  basePath = "",
): void {
  const fail: (problem: string) => never = (problem) => {
    const text = new TextDecoder().decode(bytes.subarray(0, 600));
    throw new AssertionError({
      message: `${method} ${url} answered ${response.status}, which breaks the OpenAPI document: ${problem}\n${text}`,
    });
  };
  const pathname = new URL(url).pathname;
  const relative = pathname.startsWith(basePath) ? pathname.slice(basePath.length) : null;
  const path = relative === null ? null : withoutSlash(relative);
  const matching = path === null ? [] : routes.filter((route) => route.pattern.test(path));
  const route = matching.find((candidate) => candidate.method === method);
  const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!route) {
    // No operation: the router's own answers for unknown paths and methods (docs/design.md §8),
    // or what comes before routing: credentials (401), the admin guard, rate limits, a stop.
    const status = response.status;
    const underStore = storePaths.some((store) => path === store || path?.startsWith(`${store}/`));
    const allowed = [matching.length || underStore ? 405 : 404, 401, 404, 429, 503];
    if (!allowed.includes(status)) fail(`a request no operation serves cannot get ${status}`);
    if (status === 405 && !response.headers.get("allow")) fail("a 405 without Allow");
    if (method !== "HEAD") checkJson(`router ${status}`, failureOf(status), type, bytes, fail);
    return;
  }
  const answer = route.operation.responses[String(response.status)];
  if (!answer) fail(`status ${response.status} is not documented for ${route.template}`);
  for (const [name, header] of Object.entries<Json>(answer.headers ?? {})) {
    if (header.required && !response.headers.has(name)) fail(`no ${name} header`);
  }
  const content = answer.content ?? {};
  const key = Object.keys(content).find((media) => media === type || media === "*/*");
  if (key === undefined) fail(`content type "${type}" is not documented`);
  if (key !== "application/json" || method === "HEAD") return;
  const schemaKey = `${route.method} ${route.template} ${response.status}`;
  checkJson(schemaKey, content[key].schema, type, bytes, fail);
}

function checkJson(
  key: string,
  schema: Json,
  type: string,
  bytes: Uint8Array,
  fail: (problem: string) => never,
): void {
  if (type !== "application/json") fail(`content type "${type}" where JSON is documented`);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    fail("the body is not JSON");
  }
  const validate = validatorOf(key, schema);
  if (!validate(body)) fail(ajv.errorsText(validate.errors, { separator: "; " }));
}

const routerFailures = new Map<number, Json>();

/** The failure envelope of a 404 or 405 that the router answers before any operation. */
function failureOf(status: number): Json {
  let schema = routerFailures.get(status);
  if (!schema) {
    schema = jsonSchemaOf(failureSchema(status).schema);
    routerFailures.set(status, schema);
  }
  return schema;
}

function withoutSlash(path: string): string {
  // As the router reads a path: any number of trailing slashes (itty-router's `/*$`).
  return path.replace(/\/+$/, "") || "/";
}
