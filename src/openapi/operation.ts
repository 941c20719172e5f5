import type * as v from "valibot";

/**
 * Who may call an operation:
 * - `account`: account-token headers, or a customer login token (P2);
 * - `public`: anyone while the form allows it; credentials, when sent, are used;
 * - `partner`: partner credentials;
 * - `admin`: the admin secret;
 * - `none`: no credentials are read.
 *
 * It also decides the rate limit a request draws on: a `public` operation counts against the
 * client's address, any other against the credential that authenticated (`rate-limits.ts`).
 */
export type Auth = "account" | "public" | "partner" | "admin" | "none";

/** A named schema, listed once under `components.schemas` and referred to by name. */
export interface NamedSchema {
  name: string;
  schema: v.GenericSchema;
}

/** One operation of the service, as the OpenAPI document lists it. */
export interface Operation {
  method: "get" | "head" | "post" | "delete";
  /** The route's path below the base path, as the router writes it (`:formId`). */
  path: string;
  /**
   * The path as the document writes it, when the interface writes it otherwise: with a
   * trailing slash, or with a parameter named as the path's other operations name it (a
   * document has one template per path). Same shape as `path`.
   */
  documentPath?: string;
  operationId: string;
  /** The endpoint's numbers in the interface (`F2, F3`), or `extension`. */
  ref: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /** Path parameters' descriptions, by name. */
  pathDescriptions?: Record<string, string>;
  /** Path parameters that are not GUIDs (`guidPathSchema`), by name. */
  pathSchemas?: Record<string, v.GenericSchema>;
  /** The query parameters: an object schema, one parameter per entry. */
  query?: v.GenericSchema;
  /** Descriptions of query parameters, by name. */
  queryDescriptions?: Record<string, string>;
  /** Request headers besides credentials: an object schema, one header per entry. */
  headers?: v.GenericSchema;
  /** The request body: JSON of a named schema, or a multipart upload. */
  body?: { json: NamedSchema; required: boolean } | { multipart: string };
  /** The answer on success. */
  response: {
    description: string;
    /**
     * Its JSON schema; `html` for a page (whose failures are pages too); `export` for the
     * CSV or NDJSON download of submissions; `ndjson` for an NDJSON download alone (the
     * respondent export); `download` for a stored file.
     */
    schema: NamedSchema | "html" | "export" | "ndjson" | "download";
  };
  /**
   * The failure statuses it may answer, when they differ from what `failureStatuses`
   * derives from the rest of the operation.
   */
  failures?: readonly number[];
  /** Another answer than a failure envelope, such as `/readyz`'s 503. */
  alsoAnswers?: { status: number; description: string; schema: NamedSchema };
  /**
   * Not a route of the router: served before it, by the blob store (the fs store's
   * downloads) or by the service itself (the probes).
   */
  beforeRouter?: "blob store" | "service";
}

/**
 * The failure statuses of an operation: credentials are read on every route (401), and
 * counted against a rate limit (429); an unexpected fault answers a bare 500, a stopping
 * service 503; input brings 400, a path 404, a body 413 and 415, a caller with credentials
 * 403, and every write 409 (another request changed the record first).
 */
export function failureStatuses(operation: Operation): number[] {
  if (operation.failures) return [...operation.failures];
  const statuses = new Set([401, 429, 500, 503]);
  const { path, query, headers, body, auth, method } = operation;
  if (path.includes(":") || query || headers || body) statuses.add(400);
  if (path.includes(":") || auth === "admin") statuses.add(404);
  if (auth === "account" || auth === "public") statuses.add(403);
  if (method === "post" || method === "delete") statuses.add(409);
  if (body) statuses.add(413).add(415);
  return [...statuses].sort();
}

/** `/a/:b/c` → `/a/{b}/c`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}

/** The names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? "");
}
