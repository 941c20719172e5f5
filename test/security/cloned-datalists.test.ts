import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput, setup } from "../helpers.ts";

/**
 * A form draws options only from its owner's datalists (docs/design.md §3). F1 copies the
 * definition, datalist ids included, into a form the cloner owns: that clone must not become
 * a window onto the original owner's datalist, neither through F5 nor as an S2 oracle.
 */
describe("a clone of a form whose field uses the owner's datalist", () => {
  it("shows none of that datalist's entries and accepts none of them, once access is gone", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const bob = await user("bob@example.com");
    const list = await call("POST", "/api/restricted/datalist", {
      as: alice,
      body: { settings: { list_name: "Clients" } },
    });
    const entries = `/api/restricted/datalist/${list.body.id}/entry`;
    await call("POST", entries, { as: alice, body: { entry_value: "Acme" } });
    const field = { unique_system_name: "cli_1", type: "select", label: "Client" };
    const created = await call("POST", "/api/restricted/form", {
      as: alice,
      body: formInput("Orders", [{ ...field, datalist_id: list.body.id }]),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const form = `/api/restricted/form/${created.body.id}`;
    const granted = await call(
      "POST",
      `${form}/usersecurity?collaborator_email=bob@example.com&has_form_editor=1`,
      { as: alice },
    );
    const clone = await call("POST", `${form}/clone`, { as: bob });
    assert.equal(clone.status, 200, JSON.stringify(clone.body));
    await call("DELETE", `${form}/usersecurity/${granted.body.id}`, { as: alice });
    await call("POST", entries, { as: alice, body: { entry_value: "Secret client" } });

    const rendered = await call("GET", `/api/form/${clone.body.id}`);
    assert.equal(rendered.status, 200);
    assert.deepEqual(rendered.body.form_definition.pages[0].fields[0].options, []);
    const guess = await call("POST", `/api/form/${clone.body.id}/submission`, {
      body: { form_fields: [{ unique_system_name: "cli_1", submitted_value: "Secret client" }] },
    });
    assert.equal(guess.status, 400, JSON.stringify(guess.body));
    assert.deepEqual(guess.body.issues, [{ path: "cli_1", message: "is not one of the options" }]);
    // The original keeps working for its owner's datalist.
    const original = await call("GET", `/api/form/${created.body.id}`);
    assert.deepEqual(original.body.form_definition.pages[0].fields[0].options, [
      "Acme",
      "Secret client",
    ]);
  });
});
