import assert from "node:assert/strict";
import type { FormService } from "../../src/index.ts";
import { conformingFetch } from "../helpers.ts";

/** One request of a matrix cell, before the caller's credentials are added. */
export interface MatrixRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** JSON unless a string or FormData. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a caller sends to prove who it is. */
export interface Credentials {
  headers: Record<string, string>;
  /** P2: sent as the `partnerAccountId` query parameter. */
  partnerAccountId?: string;
  /** The user id of a signed-in principal. */
  userId?: string;
}

/** An answer: status and JSON body (undefined for an HTML page). */
export interface MatrixAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: cells read arbitrary JSON answers.
  body: any;
}

/** Sends one request through `service.fetch` with a caller's credentials. */
export async function sendAs(
  service: FormService,
  credentials: Credentials,
  request: MatrixRequest,
): Promise<MatrixAnswer> {
  let path = request.path;
  if (credentials.partnerAccountId) {
    path += `${path.includes("?") ? "&" : "?"}partnerAccountId=${credentials.partnerAccountId}`;
  }
  const headers = new Headers({ ...credentials.headers, ...request.headers });
  let body: BodyInit | undefined;
  if (typeof request.body === "string" || request.body instanceof FormData) body = request.body;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers.set("content-type", "application/json");
  }
  const response = await conformingFetch(service)(
    new Request(`http://localhost${path}`, { method: request.method, headers, body }),
  );
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("json");
  return { status: response.status, body: json && text ? JSON.parse(text) : undefined };
}

/** The body of an answer that must be a 200. */
// biome-ignore lint/suspicious/noExplicitAny: fixtures read arbitrary JSON answers.
export async function expectOk(answer: Promise<MatrixAnswer>): Promise<any> {
  const { status, body } = await answer;
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}
