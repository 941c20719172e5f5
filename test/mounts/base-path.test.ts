import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import { formInput, request, setup } from "../helpers.ts";

describe("basePath", () => {
  it("answers every route under the base path", async () => {
    const { service, call, user } = await setup({ basePath: "/forms" });
    const owner = await user("owner@example.com");
    const created = await call("POST", "/forms/api/restricted/form", {
      as: owner,
      body: formInput(),
    });
    assert.equal(created.status, 200);
    const listed = await call("GET", "/forms/api/restricted/user/form", { as: owner });
    assert.deepEqual(
      listed.body.results.map((form: { id: string }) => form.id),
      [created.body.id],
    );
    assert.equal((await request(service, "GET", `/forms/api/form/${created.body.id}`)).status, 200);
  });

  it("answers 404 outside the base path, as for an unknown route", async () => {
    const { call, user } = await setup({ basePath: "/forms" });
    const owner = await user("owner@example.com");
    for (const path of ["/api/restricted/user/form", "/formsx/api/restricted/user/form", "/"]) {
      const { status, body } = await call("GET", path, { as: owner });
      assert.equal(status, 404, path);
      assert.deepEqual(body, {
        id: "",
        message: "No such endpoint",
        action_successful: false,
        error: "not_found",
      });
    }
  });

  it("keeps S2's camel-case outcome on failures under the base path", async () => {
    const { call } = await setup({ basePath: "/forms" });
    const missing = "00000000-0000-4000-8000-000000000000";
    const { status, body } = await call("POST", `/forms/api/form/${missing}/submission`, {
      body: { form_fields: [] },
    });
    assert.equal(status, 404);
    assert.equal(body.actionSuccessful, false);
  });

  it("takes a trailing slash, and refuses what is not a path", async () => {
    const { call, user } = await setup({ basePath: "/a/forms/" });
    const owner = await user("owner@example.com");
    assert.equal(
      (await call("GET", "/a/forms/api/restricted/user/form", { as: owner })).status,
      200,
    );
    for (const basePath of ["forms", "/a//b", "/forms/:id", "/forms/*", "/fo rms", "/f(x)"]) {
      assert.throws(() => createFormService({ store: createMemoryStore(), basePath }), {
        name: "TypeError",
        message: `basePath must be a path such as "/forms", not ${JSON.stringify(basePath)}`,
      });
    }
  });
});
