import type * as v from "valibot";

/**
 * Who may call an operation:
 * - `account`: account-token headers, or a customer login token (P2);
 * - `public`: anyone while the form allows it; credentials, when sent, are used;
 * - `partner`: partner credentials;
 * - `admin`: the admin secret;
 * - `none`: no credentials are read.
 */
export type Auth = "account" | "public" | "partner" | "admin" | "none";

/** A named schema, listed once under `components.schemas` and referred to by name. */
export interface NamedSchema {
  name: string;
  schema: v.GenericSchema;
}

/** One operation of the service, as the OpenAPI document lists it. */
export interface Operation {
  method: "get" | "post" | "delete";
  /** The route's path below the base path, as the router writes it (`:formId`). */
  path: string;
  operationId: string;
  /** The endpoint's numbers in the interface (`F2, F3`), or `extension`. */
  ref: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /** Path parameters' descriptions, by name; every `:name` of `path` is a string. */
  pathDescriptions?: Record<string, string>;
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
     * Its JSON schema; `html` for a page; `export` for the CSV or NDJSON download of
     * submissions; absent when only described.
     */
    schema?: NamedSchema | "html" | "export";
  };
}

/** `/a/:b/c` → `/a/{b}/c`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}

/** The names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? "");
}
