import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { request, setup } from "./helpers.ts";

const id = "0190a8c4-1b2c-7d3e-8f40-123456789abc";

describe("405 Method Not Allowed (docs/design.md §8)", () => {
  it("answers a known path called with another method 405, with Allow", async () => {
    const { call } = await setup({ adminSecret: "admin-secret" });
    const cases: [method: string, path: string, allow: string][] = [
      ["GET", "/api/restricted/datalist", "POST"],
      ["PUT", "/api/restricted/form", "POST"],
      ["DELETE", `/api/restricted/form/${id}`, "POST"],
      ["GET", `/api/restricted/form/${id}/clone`, "POST"],
      ["PATCH", `/api/restricted/form/${id}/submission/${id}`, "DELETE, GET, POST"],
      ["POST", `/api/form/${id}`, "GET"],
      ["GET", `/api/form/${id}/submission`, "POST"],
      ["PUT", `/api/restricted/form/${id}/usersecurity`, "GET, POST"],
      ["OPTIONS", "/api/restricted/user/form", "GET"],
      ["DELETE", "/openapi.json", "GET"],
      // GET routes do not answer HEAD: Allow says so rather than promising it.
      ["HEAD", `/f/${id}`, "GET"],
      ["GET", "/api/admin/partners", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const headers = { AdminSecret: "admin-secret" };
      const answer = await call(method, path, { headers });
      const what = `${method} ${path}`;
      assert.equal(answer.status, 405, what);
      assert.equal(answer.headers.get("allow"), allow, what);
      if (method === "HEAD") continue;
      assert.deepEqual(
        answer.body,
        {
          id: "",
          message: `This endpoint answers only ${allow}`,
          action_successful: false,
          error: "method_not_allowed",
        },
        what,
      );
    }
  });

  it("still answers unknown paths 404, and checks credentials before the method", async () => {
    const { call } = await setup({ adminSecret: "admin-secret" });
    for (const [method, path] of [
      ["GET", "/nothing"],
      ["GET", "/api/restricted/datalists"],
      ["PUT", `/api/restricted/form/${id}/nothing`],
    ]) {
      const answer = await call(method ?? "", path ?? "");
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.body.message, "No such endpoint");
      assert.equal(answer.headers.get("allow"), null);
    }
    const wrongToken = { TokenId: id, TokenSecret: "wrong" };
    const unauthenticated = await call("GET", "/api/restricted/datalist", { headers: wrongToken });
    assert.equal(unauthenticated.status, 401);
    assert.equal((await call("GET", "/api/admin/partners")).status, 401);
  });

  it("keeps the admin routes 404 when no admin secret is set", async () => {
    const { call } = await setup();
    const answer = await call("GET", "/api/admin/partners", { headers: { AdminSecret: "x" } });
    assert.equal(answer.status, 404);
  });

  it("works under a base path, and only there", async () => {
    const { service } = await setup({ basePath: "/forms" });
    const inside = await request(service, "GET", "/forms/api/restricted/datalist");
    assert.equal(inside.status, 405);
    assert.equal(inside.headers.get("allow"), "POST");
    const onOpenApi = await request(service, "POST", "/forms/openapi.json");
    assert.equal(onOpenApi.headers.get("allow"), "GET");
    for (const path of [
      "/api/restricted/datalist",
      "/forms/nothing",
      "/formsapi/restricted/datalist",
    ]) {
      const outside = await request(service, "GET", path);
      assert.equal(outside.status, 404, path);
      assert.equal(outside.body.error, "not_found", path);
    }
  });
});
