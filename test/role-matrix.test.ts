import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { roleNames } from "../src/domain/forms/roles.ts";
import { formInput, setup, type TestUser } from "./helpers.ts";

type Who = "owner" | (typeof roleNames)[number] | "stranger" | "anonymous";
const everyone: Who[] = ["owner", ...roleNames, "stranger", "anonymous"];

/** Each operation on a form, and the roles that may do it besides the owner (docs/design.md §3). */
const operations: {
  name: string;
  allowed: Who[];
  send: (formId: string) => [string, string, unknown?];
}[] = [
  {
    name: "F1 clone",
    allowed: ["has_form_editor"],
    send: (id) => ["POST", `/api/restricted/form/${id}/clone`],
  },
  {
    name: "F2 settings",
    allowed: ["has_form_editor"],
    send: (id) => [
      "POST",
      `/api/restricted/form/${id}/?updateSettingsOnly=1&settingsSection=paymentsettings`,
      {},
    ],
  },
  {
    name: "whole update",
    allowed: ["has_form_editor"],
    send: (id) => ["POST", `/api/restricted/form/${id}/`, formInput()],
  },
  {
    name: "F3 delete",
    allowed: ["has_account_management"],
    send: (id) => [
      "POST",
      `/api/restricted/form/${id}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`,
    ],
  },
  {
    name: "U1 list",
    allowed: ["has_account_management"],
    send: (id) => ["GET", `/api/restricted/form/${id}/usersecurity`],
  },
  {
    name: "U2 add",
    allowed: ["has_account_management"],
    send: (id) => [
      "POST",
      `/api/restricted/form/${id}/usersecurity?collaborator_email=new@example.com`,
    ],
  },
  { name: "F5 form JSON", allowed: [...everyone], send: (id) => ["GET", `/api/form/${id}`] },
];

function expected(who: Who, allowed: Who[]): number {
  if (who === "owner" || allowed.includes(who)) return 200;
  if (who === "anonymous") return 401;
  return who === "stranger" ? 404 : 403;
}

describe("role matrix", () => {
  for (const operation of operations) {
    it(`${operation.name}: owner${operation.allowed.map((r) => `, ${r}`).join("")} may; others are refused`, async () => {
      for (const who of everyone) {
        const { call, user } = await setup();
        const owner = await user("owner@example.com");
        const { body } = await call("POST", "/api/restricted/form", {
          as: owner,
          body: formInput(),
        });
        let caller: TestUser | undefined = owner;
        if (who === "anonymous") caller = undefined;
        else if (who === "stranger") caller = await user("stranger@example.com");
        else if (who !== "owner") {
          const path = `/api/restricted/form/${body.id}/usersecurity?collaborator_email=c@example.com&${who}=1`;
          assert.equal((await call("POST", path, { as: owner })).status, 200);
          caller = await user("c@example.com");
        }
        const [method, path, payload] = operation.send(body.id);
        const answer = await call(method, path, { as: caller, body: payload });
        assert.equal(
          answer.status,
          expected(who, operation.allowed),
          `${operation.name} as ${who}`,
        );
      }
    });
  }
});
