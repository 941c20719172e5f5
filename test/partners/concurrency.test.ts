import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { formInput } from "../helpers.ts";
import { customerBody, withPartner } from "./setup.ts";

const textField = { unique_system_name: "name_1", type: "text", label: "Name" };

const stores: [string, () => Promise<Store>][] = [
  ["memory", async () => createMemoryStore()],
  [
    "lowdb",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "formwork-partner-quota-"));
      after(() => rm(directory, { recursive: true, force: true }));
      return createLowdbStore({ directory });
    },
  ],
];

for (const [name, createStore] of stores) {
  describe(`quotas under concurrent requests (${name} store)`, () => {
    it("stores exactly 10 of 50 concurrent submissions against a monthly quota of 10", async () => {
      const env = await withPartner({ store: await createStore() });
      await env.addCustomer(customerBody("carla@example.com", { monthly: 10 }));
      const jwt = await env.login("carla@example.com");
      const form = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
        body: formInput("Rush", [textField]),
      });
      const body = { form_fields: [{ unique_system_name: "name_1", submitted_value: "x" }] };
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          env.call("POST", `/api/form/${form.body.id}/submission`, { body }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 200).length, 10);
      assert.equal(statuses.filter((status) => status === 403).length, 40);
      for (const answer of answers) {
        if (answer.status === 403) assert.equal(answer.body.error, "quota_exceeded");
      }
      const listed = await env.asCustomer(
        jwt,
        "GET",
        `/api/restricted/form/${form.body.id}/submissions`,
      );
      assert.equal(listed.body.results.length, 10);
      await env.service.close();
    });

    it("creates exactly as many forms and datalists as the quotas allow", async () => {
      const env = await withPartner({ store: await createStore() });
      await env.addCustomer(customerBody("carla@example.com", { forms: 4, datalists: 3 }));
      const jwt = await env.login("carla@example.com");
      const [forms, lists] = await Promise.all([
        Promise.all(
          Array.from({ length: 12 }, () =>
            env.asCustomer(jwt, "POST", "/api/restricted/form", { body: formInput() }),
          ),
        ),
        Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            env.asCustomer(jwt, "POST", "/api/restricted/datalist", {
              body: { settings: { list_name: `L${i}` } },
            }),
          ),
        ),
      ]);
      assert.equal(forms.filter((answer) => answer.status === 200).length, 4);
      assert.equal(lists.filter((answer) => answer.status === 200).length, 3);
      const listedForms = await env.asCustomer(jwt, "GET", "/api/restricted/user/form");
      assert.equal(listedForms.body.results.length, 4);
      const listedLists = await env.asCustomer(jwt, "GET", "/api/restricted/user/datalist");
      assert.equal(listedLists.body.results.length, 3);
      await env.service.close();
    });
  });
}
