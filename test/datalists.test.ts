import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService } from "../src/index.ts";
import { conformingFetch, request, setup } from "./helpers.ts";

async function withDatalist() {
  const env = await setup();
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/datalist", {
    as: alice,
    body: { settings: { list_name: "Colours", list_description: "Paint" } },
  });
  assert.equal(created.status, 200);
  const id = created.body.id as string;
  return { ...env, alice, id, base: `/api/restricted/datalist/${id}` };
}

describe("datalists", () => {
  it("D1 creates a datalist and answers the record", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const { status, body } = await call("POST", "/api/restricted/datalist", {
      as: alice,
      body: { settings: { list_name: "Cities" } },
    });
    assert.equal(status, 200);
    assert.deepEqual(body, {
      settings: { list_name: "Cities", list_description: "", list_type: "alphanumeric" },
      id: body.id,
      created_date_utc: body.created_date_utc,
      modified_date_utc: "0001-01-01T00:00:00",
    });
    assert.match(body.created_date_utc, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("D2 changes the settings given and stamps the modification", async () => {
    const { call, alice, base } = await withDatalist();
    const { status, body } = await call("POST", base, {
      as: alice,
      body: { settings: { list_name: "Colors" } },
    });
    assert.equal(status, 200);
    assert.deepEqual(body.settings, {
      list_name: "Colors",
      list_description: "Paint",
      list_type: "alphanumeric",
    });
    assert.notEqual(body.modified_date_utc, "0001-01-01T00:00:00");
  });

  it("D4 lists the caller's datalists only, with the three id arrays", async () => {
    const { call, alice, user, id } = await withDatalist();
    const bob = await user("bob@example.com");
    await call("POST", "/api/restricted/datalist", {
      as: bob,
      body: { settings: { list_name: "Bob's" } },
    });
    const { body } = await call("GET", "/api/restricted/user/datalist", { as: alice });
    assert.deepEqual(
      body.results.map((d: { id: string }) => d.id),
      [id],
    );
    assert.deepEqual(body.accessible_datalist_ids_edit_access, [id]);
    assert.deepEqual(body.accessible_datalist_ids_account_management_access, [id]);
    assert.deepEqual(body.accessible_datalist_ids_full_reporting_access, [id]);
  });

  it("D5 inserts one item, several items, or entry_items, and D7 lists them by sort_order", async () => {
    const { call, alice, base, id } = await withDatalist();
    const one = await call("POST", `${base}/entry`, { as: alice, body: { entry_value: "red" } });
    assert.equal(one.status, 200);
    assert.equal(one.body.length, 1);
    const many = await call("POST", `${base}/entry`, {
      as: alice,
      body: [{ entry_value: "green" }, { entry_value: "amber", sort_order: 0 }],
    });
    assert.equal(many.body.length, 2);
    const wrapped = await call("POST", `${base}/entry`, {
      as: alice,
      body: { entry_items: [{ entry_value: "blue" }] },
    });
    assert.equal(wrapped.body.length, 1);
    const { status, body } = await call("GET", `${base}/entries`, {
      as: alice,
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    assert.equal(status, 200);
    assert.equal(body.has_edit_access, true);
    assert.deepEqual(
      body.results.map((e: { entry_value: string; sort_order: number }) => [
        e.entry_value,
        e.sort_order,
      ]),
      [
        ["amber", 0],
        ["red", 1],
        ["green", 2],
        ["blue", 3],
      ],
    );
    const [first] = body.results;
    assert.deepEqual(Object.keys(first).sort(), [
      "created_by_device",
      "created_by_verified_email_address",
      "created_date_utc",
      "datalist_id",
      "entry_value",
      "id",
      "modified_date_utc",
      "sort_order",
    ]);
    assert.equal(first.datalist_id, id);
    assert.equal(first.created_by_verified_email_address, "alice@example.com");
  });

  it("records the client's address and country from the embedder, and the proxy's only when trusted", async () => {
    for (const trustProxy of [false, true]) {
      const service = createFormService({
        store: createMemoryStore(),
        trustProxy,
        countryOf: (address) => (address === "203.0.113.9" ? "NZ" : ""),
      });
      const alice = await service.admin.createAccount({ email: "alice@example.com" });
      const list = await request(service, "POST", "/api/restricted/datalist", {
        as: alice,
        body: { settings: { list_name: "x" } },
      });
      const path = `/api/restricted/datalist/${list.body.id}`;
      const req = new Request(`http://localhost${path}/entry`, {
        method: "POST",
        headers: {
          TokenId: alice.token_id,
          TokenSecret: alice.token_secret,
          "content-type": "application/json",
          "x-forwarded-for": "203.0.113.9, 10.0.0.1",
        },
        body: JSON.stringify({ entry_value: "v" }),
      });
      assert.equal(
        (await conformingFetch(service)(req, { clientAddress: "::ffff:192.0.2.1" })).status,
        200,
      );
      const [entry] = (await request(service, "GET", `${path}/entries`, { as: alice })).body
        .results;
      assert.deepEqual(
        entry.created_by_device,
        trustProxy
          ? { client_ip_address: "203.0.113.9", client_ip_country_code: "NZ" }
          : { client_ip_address: "192.0.2.1", client_ip_country_code: "" },
      );
    }
  });

  it("D6 deletes one entry and answers 404 for an unknown one", async () => {
    const { call, alice, base } = await withDatalist();
    const [entryId] = (
      await call("POST", `${base}/entry`, {
        as: alice,
        body: [{ entry_value: "a" }, { entry_value: "b" }],
      })
    ).body;
    const { status, body } = await call("DELETE", `${base}/entry/${entryId}`, { as: alice });
    assert.equal(status, 200);
    assert.deepEqual(body, {
      message: "Datalist Entry has been deleted successfully",
      datalist_entry_deleted: true,
    });
    assert.deepEqual(
      (await call("GET", `${base}/entries`, { as: alice })).body.results.map(
        (e: { entry_value: string }) => e.entry_value,
      ),
      ["b"],
    );
    const again = await call("DELETE", `${base}/entry/${entryId}`, { as: alice });
    assert.equal(again.status, 404);
    assert.equal(again.body.error, "not_found");
  });

  it("D3 deletes the datalist with all its entries and answers its record", async () => {
    const { call, alice, base, id } = await withDatalist();
    await call("POST", `${base}/entry`, {
      as: alice,
      body: [{ entry_value: "a" }, { entry_value: "b" }],
    });
    const { status, body } = await call("POST", `${base}?for_deletion=1`, { as: alice, body: {} });
    assert.equal(status, 200);
    assert.equal(body.id, id);
    assert.equal(body.settings.list_name, "Colours");
    assert.equal((await call("GET", `${base}/entries`, { as: alice })).status, 404);
    assert.deepEqual(
      (await call("GET", "/api/restricted/user/datalist", { as: alice })).body.results,
      [],
    );
    assert.equal((await call("POST", `${base}?for_deletion=1`, { as: alice })).status, 404);
  });

  it("hides another account's datalist behind 404 on every endpoint", async () => {
    const { call, user, base } = await withDatalist();
    const bob = await user("bob@example.com");
    for (const [method, path, body] of [
      ["POST", base, { settings: { list_name: "mine" } }],
      ["POST", `${base}?for_deletion=1`, {}],
      ["POST", `${base}/entry`, { entry_value: "x" }],
      ["GET", `${base}/entries`, undefined],
      ["DELETE", `${base}/entry/01234567-89ab-7def-8123-456789abcdef`, undefined],
    ] as const) {
      const answer = await call(method, path, { as: bob, body });
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.body.message, "Datalist not found");
      assert.equal((await call(method, path, { body })).status, 401);
    }
  });

  it("refuses invalid bodies with 400 naming the field, and inserts nothing", async () => {
    const { call, alice, base } = await withDatalist();
    const cases: [string, unknown, string][] = [
      ["/api/restricted/datalist", { settings: { list_name: " " } }, "settings.list_name"],
      [
        "/api/restricted/datalist",
        { settings: { list_name: "x", list_type: "numeric" } },
        "settings.list_type",
      ],
      ["/api/restricted/datalist", { list_name: "x" }, "settings"],
      [base, { settings: { list_description: 5 } }, "settings.list_description"],
      [`${base}?for_deletion=2`, {}, "for_deletion"],
      [`${base}/entry`, { entry_value: "" }, "0.entry_value"],
      [`${base}/entry`, [{ entry_value: "ok" }, { entry_value: 7 }], "1.entry_value"],
      [`${base}/entry`, [{ entry_value: "ok", sort_order: 1.5 }], "0.sort_order"],
      [`${base}/entry`, [], ""],
      [`${base}/entry`, { entry_items: "nope" }, ""],
      [`${base}/entry`, Array.from({ length: 1001 }, () => ({ entry_value: "x" })), ""],
      ["/api/restricted/datalist/nope/entry", { entry_value: "x" }, "datalistId"],
    ];
    for (const [path, body, at] of cases) {
      const answer = await call("POST", path, { as: alice, body });
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body).slice(0, 80)}`);
      assert.ok(
        answer.body.issues.some((i: { path: string }) => i.path === at),
        JSON.stringify(answer.body).slice(0, 300),
      );
    }
    assert.deepEqual((await call("GET", `${base}/entries`, { as: alice })).body.results, []);
  });
});
