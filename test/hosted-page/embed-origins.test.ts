/**
 * Which sites may frame the hosted page (docs/design.md §21): `securitysettings.embed_origins`
 * as F2 checks it, the `frame-ancestors` every page of the form carries, the origins the page
 * script may post to, and F5 showing none of it, on every store.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch, formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { settingsPath } from "./fixture.ts";

const fields = [{ unique_system_name: "name_1", type: "text", label: "Name", required: false }];

const originMessage =
  "must be an http or https origin such as https://shop.example, with no path, in lower case";

async function world(store: Store) {
  const service = createFormService({ store: serviceQueriesOnly(store), sweepIntervalMs: 0 });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const bob = (await service.admin.createAccount({ email: "bob@example.com" })) as TestUser;
  const created = await request(service, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Raffle", fields),
  });
  const formId: string = created.body.id;
  const settings = (section: string, body: unknown) =>
    request(service, "POST", settingsPath(formId, section), { as: alice, body });
  const page = async (id = formId, as?: TestUser) => {
    const headers = new Headers();
    if (as) {
      headers.set("TokenId", as.token_id);
      headers.set("TokenSecret", as.token_secret);
    }
    const answer = await conformingFetch(service)(
      new Request(`http://localhost/f/${id}`, { headers }),
    );
    const csp = answer.headers.get("content-security-policy") ?? "";
    const ancestors = /frame-ancestors ([^;]*)/.exec(csp)?.[1];
    return { status: answer.status, text: await answer.text(), ancestors };
  };
  return { service, alice, bob, formId, settings, page };
}

describe("hosted form page (extension): securitysettings.embed_origins", () => {
  it("F2 refuses anything but a list of at most 20 http(s) origins, naming the entry", async () => {
    const { settings, page } = await world(createMemoryStore({ freezeWrites: true }));
    const bad: [unknown, string, string][] = [
      [["shop.example"], "embed_origins.0", originMessage],
      [["https://shop.example", "https://shop.example/"], "embed_origins.1", originMessage],
      [["https://shop.example/form"], "embed_origins.0", originMessage],
      [["https://shop.example?x=1"], "embed_origins.0", originMessage],
      [["ftp://shop.example"], "embed_origins.0", originMessage],
      [["https://Shop.example"], "embed_origins.0", originMessage],
      [["https://shop.example:443"], "embed_origins.0", originMessage],
      [["https://user@shop.example"], "embed_origins.0", originMessage],
      [["https://[::1]:8080"], "embed_origins.0", originMessage],
      [["https://shop;script-src.example"], "embed_origins.0", originMessage],
      [["https://*.shop.example"], "embed_origins.0", originMessage],
      [["'self'"], "embed_origins.0", originMessage],
      [[42], "embed_origins.0", originMessage],
      ["https://shop.example", "embed_origins", "must be a list of origins"],
      [
        Array.from({ length: 21 }, (_, i) => `https://shop${i}.example`),
        "embed_origins",
        "must list at most 20 origins",
      ],
    ];
    for (const [value, path, message] of bad) {
      const answer = await settings("securitysettings", { embed_origins: value });
      assert.equal(answer.status, 400, JSON.stringify(value));
      assert.equal(answer.body.error, "validation_failed");
      assert.deepEqual(answer.body.issues, [{ path, message }], JSON.stringify(value));
    }
    assert.equal((await page()).ancestors, undefined, "a refused F2 changes nothing");
    const good = [
      [],
      ["https://shop.example"],
      ["http://localhost:8080", "https://xn--bcher-kva.example", "http://127.0.0.1:3000"],
      Array.from({ length: 20 }, (_, i) => `https://shop${i}.example`),
      null,
    ];
    for (const value of good) {
      const answer = await settings("securitysettings", { embed_origins: value });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }
  });

  it("lets no site frame a refusal whose form it could not read again", async () => {
    const store = createMemoryStore({ freezeWrites: true });
    // The form reads of one page request left before they fail (none: all succeed).
    let formReadsLeft = Number.POSITIVE_INFINITY;
    const failing = new Proxy(store, {
      get(target, key, receiver) {
        if (key !== "get") return Reflect.get(target, key, receiver);
        return (collection: string, ...rest: unknown[]) => {
          if (collection === "forms" && formReadsLeft-- <= 0) {
            return Promise.reject(new Error("the store is down"));
          }
          return (target.get as (...args: unknown[]) => unknown)(collection, ...rest);
        };
      },
    });
    const env = await world(failing);
    assert.equal(
      (await env.settings("securitysettings", { embed_origins: ["https://shop.example"] })).status,
      200,
    );
    assert.equal((await env.settings("generalsettings", { is_disabled: true })).status, 200);
    formReadsLeft = 1;
    const shown = await env.page();
    assert.equal(shown.status, 403);
    assert.match(shown.text, /This form is disabled/);
    assert.equal(shown.ancestors, "'none'");
  });

  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`frames the form's pages as the list says, and F5 never shows it (${name})`, async () => {
      const env = await world(await open());
      // Absent: any site may frame the page, and the script posts to "*".
      let shown = await env.page();
      assert.equal(shown.status, 200);
      assert.equal(shown.ancestors, undefined);
      assert.ok(!shown.text.includes("data-embed-origins"));

      const shops = ["https://shop.example", "http://localhost:8080"];
      assert.equal((await env.settings("securitysettings", { embed_origins: shops })).status, 200);
      shown = await env.page();
      assert.equal(shown.ancestors, "https://shop.example http://localhost:8080");
      assert.match(
        shown.text,
        /<form id="formwork-form" [^>]*data-embed-origins="https:\/\/shop.example http:\/\/localhost:8080"/,
      );
      const rendered = await request(env.service, "GET", `/api/form/${env.formId}`);
      assert.equal(rendered.status, 200);
      assert.ok(!JSON.stringify(rendered.body).includes("embed_origins"));
      assert.ok(!JSON.stringify(rendered.body).includes("shop.example"));

      // The closed page keeps the rule.
      const limits = { closes_at_utc: "2020-01-01T00:00:00.000Z" };
      assert.equal((await env.settings("quantitylimitsettings", limits)).status, 200);
      shown = await env.page();
      assert.match(shown.text, /id="closed-notice"/);
      assert.equal(shown.ancestors, "https://shop.example http://localhost:8080");
      assert.equal((await env.settings("quantitylimitsettings", {})).status, 200);

      // So do the sign-in page (401) and the disabled page (403); a form hidden from the
      // caller (404) answers as a missing one, with no rule.
      const login = { requires_login: true, embed_origins: shops };
      assert.equal((await env.settings("securitysettings", login)).status, 200);
      shown = await env.page();
      assert.equal(shown.status, 401);
      assert.equal(shown.ancestors, "https://shop.example http://localhost:8080");
      const hidden = await env.page(env.formId, env.bob);
      assert.equal(hidden.status, 404);
      assert.equal(hidden.ancestors, undefined);
      const missing = await env.page("00000000-0000-4000-8000-000000000000");
      assert.equal(missing.status, 404);
      assert.equal(missing.ancestors, undefined);
      const unnonced = (text: string) => text.replace(/nonce="[^"]*"/g, "");
      assert.equal(unnonced(hidden.text), unnonced(missing.text));

      assert.equal((await env.settings("securitysettings", { embed_origins: [] })).status, 200);
      assert.equal((await env.settings("generalsettings", { is_disabled: true })).status, 200);
      shown = await env.page();
      assert.equal(shown.status, 403);
      assert.equal(shown.ancestors, "'none'");
      assert.equal((await env.settings("generalsettings", { is_disabled: false })).status, 200);
      shown = await env.page();
      assert.equal(shown.status, 200);
      assert.equal(shown.ancestors, "'none'");
      assert.match(shown.text, /data-embed-origins=""/);
    });
  }
});
