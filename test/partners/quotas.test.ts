import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput } from "../helpers.ts";
import { customerBody, withPartner } from "./setup.ts";

const textField = { unique_system_name: "name_1", type: "text", label: "Name" };

/** A partner with one paying customer whose quotas are small, logged in through P1. */
async function withSmallQuotas(quotas: Parameters<typeof customerBody>[1]) {
  const env = await withPartner();
  const customerId = await env.addCustomer(customerBody("carla@example.com", quotas));
  const jwt = await env.login("carla@example.com");
  const as = (method: string, path: string, body?: unknown) =>
    env.asCustomer(jwt, method, path, { body });
  return { ...env, customerId, jwt, as };
}

function assertQuotaExceeded(answer: { status: number; body: { error: string } }, what: string) {
  assert.equal(answer.status, 403, what);
  assert.equal(answer.body.error, "quota_exceeded", what);
}

describe("quotas of partner customers, walked through P4 → P1 → P2", () => {
  it("counts forms, created and cloned, and gives a deleted form back", async () => {
    const env = await withSmallQuotas({ forms: 2 });
    const first = await env.as("POST", "/api/restricted/form", formInput("One", [textField]));
    assert.equal(first.status, 200);
    const clone = await env.as("POST", `/api/restricted/form/${first.body.id}/clone`);
    assert.equal(clone.status, 200);
    const third = await env.as("POST", "/api/restricted/form", formInput("Three"));
    assertQuotaExceeded(third, "a third form");
    assert.match(third.body.message, /at most 2 forms \(total_forms_quota\)/);
    assertQuotaExceeded(
      await env.as("POST", `/api/restricted/form/${first.body.id}/clone`),
      "a second clone",
    );
    assert.equal((await env.as("GET", "/api/restricted/user/form")).body.results.length, 2);
    const deleted = await env.as(
      "POST",
      `/api/restricted/form/${clone.body.id}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`,
    );
    assert.equal(deleted.status, 200);
    assert.equal((await env.as("POST", "/api/restricted/form", formInput("Again"))).status, 200);
  });

  it("counts datalists, and entries per datalist all or nothing", async () => {
    const env = await withSmallQuotas({ datalists: 1, entries: 3 });
    const list = await env.as("POST", "/api/restricted/datalist", { settings: { list_name: "A" } });
    assert.equal(list.status, 200);
    const second = await env.as("POST", "/api/restricted/datalist", {
      settings: { list_name: "B" },
    });
    assertQuotaExceeded(second, "a second datalist");
    assert.match(second.body.message, /at most 1 datalist \(total_datalists_quota\)/);
    assert.equal((await env.as("GET", "/api/restricted/user/datalist")).body.results.length, 1);
    const entries = `/api/restricted/datalist/${list.body.id}/entry`;
    const two = await env.as("POST", entries, [{ entry_value: "a" }, { entry_value: "b" }]);
    assert.equal(two.status, 200);
    assertQuotaExceeded(
      await env.as("POST", entries, [{ entry_value: "c" }, { entry_value: "d" }]),
      "two entries past the quota",
    );
    const listed = `/api/restricted/datalist/${list.body.id}/entries`;
    assert.equal((await env.as("GET", listed)).body.results.length, 2);
    assert.equal((await env.as("POST", entries, { entry_value: "c" })).status, 200);
    assertQuotaExceeded(await env.as("POST", entries, { entry_value: "d" }), "a fourth entry");
    const removed = await env.as("DELETE", `${entries}/${two.body[0]}`);
    assert.equal(removed.status, 200);
    assert.equal((await env.as("POST", entries, { entry_value: "d" })).status, 200);
    const dropped = await env.as("POST", `/api/restricted/datalist/${list.body.id}?for_deletion=1`);
    assert.equal(dropped.status, 200);
    const next = await env.as("POST", "/api/restricted/datalist", { settings: { list_name: "C" } });
    assert.equal(next.status, 200);
    const three = [{ entry_value: "x" }, { entry_value: "y" }, { entry_value: "z" }];
    assert.equal(
      (await env.as("POST", `/api/restricted/datalist/${next.body.id}/entry`, three)).status,
      200,
    );
  });

  it("counts submissions per calendar month (UTC), whoever submits", async () => {
    const env = await withSmallQuotas({ monthly: 3 });
    const form = await env.as("POST", "/api/restricted/form", formInput("Survey", [textField]));
    const path = `/api/form/${form.body.id}/submission`;
    const body = { form_fields: [{ unique_system_name: "name_1", submitted_value: "x" }] };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // The customer's own submissions and an anonymous one count alike.
      const answer =
        i < 2 ? await env.as("POST", path, body) : await env.call("POST", path, { body });
      assert.equal(answer.status, 200);
      ids.push(answer.body.id);
    }
    const refused = await env.call("POST", path, { body });
    assertQuotaExceeded(refused, "a fourth submission this month");
    assert.equal(refused.body.actionSuccessful, false);
    const submissions = `/api/restricted/form/${form.body.id}/submissions`;
    assert.equal((await env.as("GET", submissions)).body.results.length, 3);
    // Deleting a submission does not give back the month's quota: it counts what came in.
    const deleted = await env.as(
      "DELETE",
      `/api/restricted/form/${form.body.id}/submission/${ids[0]}`,
    );
    assert.equal(deleted.status, 200);
    assertQuotaExceeded(await env.call("POST", path, { body }), "after a deletion");
    env.clock.now = new Date("2026-11-30T23:59:59.999Z");
    assertQuotaExceeded(await env.call("POST", path, { body }), "at the end of the month");
    env.clock.now = new Date("2026-12-01T00:00:00.000Z");
    assert.equal((await env.call("POST", path, { body })).status, 200);
    const jwt = await env.login("carla@example.com");
    const listed = await env.asCustomer(jwt, "GET", submissions);
    assert.equal(listed.body.results.length, 3);
  });

  it("counts collaborators granted has_account_management, on grant and on change", async () => {
    const env = await withSmallQuotas({ admins: 1 });
    const form = await env.as("POST", "/api/restricted/form", formInput("Team"));
    const users = `/api/restricted/form/${form.body.id}/usersecurity`;
    const grant = (email: string, admin: 0 | 1) =>
      env.as(
        "POST",
        `${users}?collaborator_email=${email}&has_account_management=${admin}&has_reporting_full=1`,
      );
    const ann = await grant("ann@example.com", 1);
    assert.equal(ann.status, 200);
    assertQuotaExceeded(await grant("bob@example.com", 1), "a second admin");
    const bob = await grant("bob@example.com", 0);
    assert.equal(bob.status, 200, "a collaborator without account management does not count");
    assertQuotaExceeded(
      await env.as("POST", `${users}/${bob.body.id}?has_account_management=1`),
      "making bob an admin",
    );
    assert.equal(
      (await env.as("POST", `${users}/${ann.body.id}?has_account_management=0`)).status,
      200,
    );
    assert.equal(
      (await env.as("POST", `${users}/${bob.body.id}?has_account_management=1`)).status,
      200,
    );
    assert.equal((await env.as("DELETE", `${users}/${bob.body.id}`)).status, 200);
    assert.equal((await grant("cid@example.com", 1)).status, 200);
    const listed = (await env.as("GET", users)).body.results;
    assert.deepEqual(
      listed.map((user: { granted_to_email_address?: string }) => user.granted_to_email_address),
      [undefined, "ann@example.com", "cid@example.com"],
    );
  });

  it("gives back the form and its admin collaborators when the form is deleted", async () => {
    const env = await withSmallQuotas({ forms: 1, admins: 1 });
    const form = await env.as("POST", "/api/restricted/form", formInput("Team"));
    const users = `/api/restricted/form/${form.body.id}/usersecurity`;
    const grant = `${users}?collaborator_email=ann@example.com&has_account_management=1`;
    assert.equal((await env.as("POST", grant)).status, 200);
    const remove = `/api/restricted/form/${form.body.id}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`;
    assert.equal((await env.as("POST", remove)).status, 200);
    const again = await env.as("POST", "/api/restricted/form", formInput("Team again"));
    assert.equal(again.status, 200);
    const regrant = `/api/restricted/form/${again.body.id}/usersecurity?collaborator_email=ann@example.com&has_account_management=1`;
    assert.equal((await env.as("POST", regrant)).status, 200);
  });

  it("puts no quota on local accounts", async () => {
    const env = await withPartner({ partners: { quotaDefaults: { total_forms: 0 } } });
    const alice = await env.user("alice@example.com");
    for (let i = 0; i < 3; i++) {
      const created = await env.call("POST", "/api/restricted/form", {
        as: alice,
        body: formInput(),
      });
      assert.equal(created.status, 200);
    }
    await env.addCustomer({ email: "zero@example.com" });
    const jwt = await env.login("zero@example.com");
    const refused = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
      body: formInput(),
    });
    assertQuotaExceeded(refused, "a customer with a quota of 0 forms");
  });
});
