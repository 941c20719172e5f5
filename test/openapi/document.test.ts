import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import type { AdminApi } from "../../src/admin.ts";
import { createRateLimits } from "../../src/http/rate-limits.ts";
import { packageVersion } from "../../src/openapi/document.ts";
import { openApiPath } from "../../src/openapi/operation.ts";
import { operations } from "../../src/routes/operations.ts";
import { createRouter } from "../../src/routes/router.ts";
import { request, setup } from "../helpers.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read as arbitrary JSON.
type Doc = any;

/** `/a/:b/c/` and `/a/:d/c` both → `/a/{}/c`: the same requests reach them. */
function shape(path: string): string {
  return path.replace(/:\w+/g, "{}").replace(/\/+$/, "") || "/";
}

/** Every method, path and id of the router's operations in the document. */
function documented(doc: Doc): Set<string> {
  const found = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Doc>>)) {
    for (const [method, operation] of Object.entries(item)) {
      // The blob store's downloads and the probes are served before the router.
      if (operation["x-served-by"]) continue;
      found.add(`${method} ${path} ${operation.operationId}`);
    }
  }
  return found;
}

async function documentOf(basePath = ""): Promise<Doc> {
  const { service } = await setup({ basePath });
  const { status, body } = await request(service, "GET", `${basePath}/openapi.json`);
  assert.equal(status, 200);
  return body;
}

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const doc = await documentOf();
    assert.equal(doc.openapi, "3.1.1");
    const result = await validate(structuredClone(doc));
    assert.ok(result.valid, compileErrors(result));
    assert.deepEqual(result.warnings, []);
  });

  it("serves and documents the same declarations, and nothing else", async () => {
    const router = createRouter({
      admin: {} as AdminApi,
      adminSecret: "secret",
      basePath: "/forms",
      onError: () => {},
      rateLimits: createRateLimits(),
    });
    const routed = router.routes
      .filter(([method]) => method !== "ALL")
      .map(([method, , , path]) => `${method} ${path}`);
    assert.deepEqual(
      routed,
      operations.map(({ method, path }) => `${method.toUpperCase()} /forms${path}`),
    );
    const doc = await documentOf("/forms");
    const declared = operations.map((operation) => {
      const { method, path, documentPath = path, operationId } = operation;
      // A document path only writes the route's path otherwise: the same requests reach it.
      assert.equal(shape(documentPath), shape(path), operationId);
      return `${method} ${openApiPath(documentPath)} ${operationId}`;
    });
    assert.deepEqual([...documented(doc)].sort(), declared.sort());
  });

  it("covers every endpoint of the interface", async () => {
    const doc = await documentOf();
    const refs = new Set<string>();
    for (const item of Object.values(doc.paths as Record<string, Record<string, Doc>>)) {
      for (const operation of Object.values(item)) {
        for (const ref of String(operation["x-interface"]).split(", ")) refs.add(ref);
      }
    }
    const expected = [
      ...["P1", "P3", "P4", "P5"],
      ...["F1", "F2", "F3", "F4", "F5"],
      ...["U1", "U2", "U3", "U4"],
      ...["D1", "D2", "D3", "D4", "D5", "D6", "D7"],
      ...["W1", "W2", "W3"],
      ...["S1", "S2", "S3", "S4", "S5", "S6", "S7"],
    ];
    for (const ref of expected) assert.ok(refs.has(ref), `${ref} is missing`);
  });

  it("names each route's auth scheme", async () => {
    const doc = await documentOf();
    const security = (method: string, path: string) => doc.paths[path][method].security;
    const account = [
      { TokenId: [], TokenSecret: [] },
      { CustomerToken: [], PartnerAccountId: [] },
    ];
    assert.deepEqual(security("get", "/api/restricted/form/{formId}/submissions"), account);
    assert.deepEqual(security("post", "/api/form/{formId}/submission"), [{}, ...account]);
    assert.deepEqual(security("get", "/api/restricted/partner/users"), [
      { PartnerId: [], PartnerSecret: [] },
    ]);
    assert.deepEqual(security("post", "/api/admin/partners"), [{ AdminSecret: [] }]);
    assert.deepEqual(security("get", "/openapi.json"), []);
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      "AdminSecret",
      "CustomerToken",
      "PartnerAccountId",
      "PartnerId",
      "PartnerSecret",
      "TokenId",
      "TokenSecret",
    ]);
    assert.equal(doc.components.securitySchemes.CustomerToken.scheme, "bearer");
  });

  it("describes bodies and queries with the routes' own schemas", async () => {
    const doc = await documentOf();
    const { schemas } = doc.components;
    assert.deepEqual(schemas.SubmissionInput.required, ["form_fields"]);
    assert.deepEqual(schemas.DatalistInput.properties.settings.required, ["list_name"]);
    assert.match(schemas.AccountInput.properties.email.pattern, /@/);
    const s5 = doc.paths["/api/restricted/form/{formId}/submissions"].get;
    assert.deepEqual(
      s5.parameters.map((p: Doc) => p.name),
      [
        "formId",
        "includeFormDefinition",
        "dateFrom",
        "dateTo",
        "batchSize",
        "continuationToken",
        "search",
      ],
    );
    const upload = doc.paths["/api/form/{formId}/submissionattachment"].post.requestBody;
    assert.ok(upload.content["multipart/form-data"]);
  });

  it("is served under the base path, with the base path as its server", async () => {
    const doc = await documentOf("/forms");
    assert.deepEqual(doc.servers, [{ url: "/forms" }]);
    const { service } = await setup({ basePath: "/forms" });
    assert.equal((await request(service, "GET", "/openapi.json")).status, 404);
  });

  it("carries the package's version", async () => {
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
    assert.equal(packageVersion, pkg.version);
    assert.equal((await documentOf()).info.version, pkg.version);
  });
});
