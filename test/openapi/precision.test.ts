/**
 * The OpenAPI document says exactly what the service accepts: for each rule below (path ids,
 * batchSize, bodies, choice fields, webhooks, quotas, uploads), sample inputs are judged by
 * the document's schema (ajv) and sent to the service, and both must agree on which ones
 * are refused.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput, type Send, setup } from "../helpers.ts";
import { partnerCalls } from "../partners/setup.ts";
import { document, documentAccepts } from "./conformance.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read as arbitrary JSON.
type Json = any;

const guid = "4ee2bb21-0b1c-4c5e-9a43-1b2c3d4e5f60";

function operation(path: string, method: string): Json {
  return document.paths[path][method];
}

function parameter(path: string, method: string, name: string): Json {
  return operation(path, method).parameters.find((p: Json) => p.name === name).schema;
}

function bodySchema(path: string, method: string): Json {
  return operation(path, method).requestBody.content["application/json"].schema;
}

/** Asserts that the document and the service agree on each sample; `refused` = a 400. */
async function agree(
  samples: unknown[],
  schema: Json,
  send: (sample: Json) => Promise<{ status: number; body: Json }>,
) {
  const verdicts = new Set<boolean>();
  for (const sample of samples) {
    const answer = await send(sample);
    const refused = answer.status === 400;
    verdicts.add(refused);
    assert.equal(
      !documentAccepts(schema, sample),
      refused,
      `${JSON.stringify(sample)}: the service answered ${answer.status} ${JSON.stringify(answer.body)}`,
    );
  }
  // Samples on both sides of the rule, or the agreement proves nothing.
  assert.equal(verdicts.size, 2, "every sample got the same verdict");
}

describe("OpenAPI document precision", () => {
  it("takes GUIDs in paths, in either case and in braces, and nothing else", async () => {
    const { call } = await setup();
    const schema = parameter("/api/form/{formId}", "get", "formId");
    const ids = [guid, guid.toUpperCase(), `{${guid}}`, `{${guid}`, "abc", `${guid}0`, "1234"];
    await agree(ids, schema, (id) => call("GET", `/api/form/${encodeURIComponent(id)}`));
  });

  it("bounds batchSize to 1–1000", async () => {
    const { call, user } = await setup();
    const owner = await user("owner@example.com");
    const form = await call("POST", "/api/restricted/form", { as: owner, body: formInput() });
    const schema = parameter("/api/restricted/form/{formId}/submissions", "get", "batchSize");
    const sizes = ["0", "1", "999", "1000", "1001", "00010", "000010", "99999", "x", "-1", "1.5"];
    await agree(sizes, schema, (size) =>
      call("GET", `/api/restricted/form/${form.body.id}/submissions?batchSize=${size}`, {
        as: owner,
      }),
    );
  });

  it("requires D2's body, and a non-blank entry_value in D5", async () => {
    const { call, user } = await setup();
    const owner = await user("owner@example.com");
    const list = await call("POST", "/api/restricted/datalist", {
      as: owner,
      body: { settings: { list_name: "Cities" } },
    });
    assert.equal(
      operation("/api/restricted/datalist/{datalistId}", "post").requestBody.required,
      true,
    );
    assert.equal(
      (await call("POST", `/api/restricted/datalist/${list.body.id}`, { as: owner })).status,
      400,
    );
    const entries = bodySchema("/api/restricted/datalist/{datalistId}/entry", "post");
    const values = ["", " ", "\t\n", " Paris ", "x"].map((entry_value) => ({ entry_value }));
    await agree(values, entries, (body) =>
      call("POST", `/api/restricted/datalist/${list.body.id}/entry`, { as: owner, body }),
    );
  });

  it("needs options or a datalist_id on choice fields", async () => {
    const { call, user } = await setup();
    const owner = await user("owner@example.com");
    const field = (extra: object) => ({
      unique_system_name: "size_1",
      type: "select",
      label: "Size",
      ...extra,
    });
    const forms = [
      {},
      { options: ["S"] },
      { options: [] },
      { options: ["S"], datalist_id: guid },
    ].map((extra) => formInput("Shop", [field(extra)]));
    await agree(forms, bodySchema("/api/restricted/form", "post"), (body) =>
      call("POST", "/api/restricted/form", { as: owner, body }),
    );
  });

  it("says W2 needs a URL field, and header key and value both or neither", async () => {
    const { call, user } = await setup({ allowPrivateWebhookDestinations: true });
    const owner = await user("owner@example.com");
    const form = await call("POST", "/api/restricted/form", { as: owner, body: formInput() });
    const url = "http://127.0.0.1:9/hook";
    const bodies = [
      { webhook_name: "a" },
      { webhook_name: "a", webhook_destination_url: url },
      { webhook_name: "a", webhook_url: url },
      { webhook_name: "a", webhook_url: url, http_header_key: "X-Key" },
      { webhook_name: "a", webhook_url: url, http_header_value: "v" },
      { webhook_name: "a", webhook_url: url, http_header_key: "X-Key", http_header_value: "v" },
      { webhook_name: "a", webhook_url: url, http_header_key: "", http_header_value: "" },
      { webhook_name: "   ", webhook_url: url },
    ];
    const path = "/api/restricted/form/{formId}/submissionwebhook";
    await agree(bodies, bodySchema(path, "post"), (body) =>
      call("POST", `/api/restricted/form/${form.body.id}/submissionwebhook`, { as: owner, body }),
    );
  });

  it("takes quotas as whole numbers or numeric strings, and the service's e-mail check", async () => {
    const env = await setup();
    const partner = await env.service.admin.createPartner({ name: "Acme" });
    const { asPartner } = partnerCalls(env.call, partner);
    const quotas = [5, "5", " 7 ", 0, -1, 1.5, "abc", "", "1e3", true];
    let n = 0;
    await agree(
      quotas.map((quota) => ({ email: `c${n++}@example.com`, total_forms_quota: quota })),
      bodySchema("/api/restricted/partner/user", "post"),
      (body) => asPartner("POST", "/api/restricted/partner/user", { body } as Send),
    );
    const emails = [" Ada@Example.COM ", "a@b.co", "a@b", '"q"@b.co', "a@[1.2.3.4]", "a b@c.co"];
    await agree(
      emails.map((email) => ({ email })),
      bodySchema("/api/admin/accounts", "post"),
      async (body) => {
        try {
          return { status: 200, body: await env.service.admin.createAccount(body) };
        } catch (error) {
          return { status: (error as { status: number }).status, body: String(error) };
        }
      },
    );
  });

  it("names upload parts after file fields, refuses drafts again, lists downloads", () => {
    const upload = operation("/api/form/{formId}/submissionattachment", "post").requestBody;
    const parts = upload.content["multipart/form-data"].schema;
    assert.equal(documentAccepts(parts, { cv_4: "x" }), true);
    assert.equal(documentAccepts(parts, { "not a field": "x" }), false);
    assert.equal(documentAccepts(parts, {}), false);
    const s6 = bodySchema("/api/restricted/form/{formId}/submission/{submissionId}", "post");
    const changes = document.components.schemas[s6.$ref.split("/").pop()];
    assert.match(changes.properties.is_draft_submission.description, /cannot become one again/);
    const download = operation("/storage/{container}/{blobName}", "get");
    assert.deepEqual(
      download.parameters.filter((p: Json) => p.in === "query").map((p: Json) => p.name),
      ["sv", "se", "sr", "sp", "sig"],
    );
  });

  it("declares the hosted page's failures as HTML and a 200 schema on every operation", () => {
    const page = operation("/f/{formId}", "get").responses;
    for (const status of ["400", "403", "404"]) assert.ok(page[status].content["text/html"]);
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const content = op.responses["200"].content;
        for (const [media, body] of Object.entries<Json>(content)) {
          const described = body.schema?.$ref ?? body.schema?.type ?? media === "*/*";
          assert.ok(described, `${method} ${path} ${media} has no 200 schema`);
        }
        assert.equal(op.responses.default, undefined, `${method} ${path} has a default answer`);
      }
    }
  });
});
