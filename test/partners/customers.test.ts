import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { customerBody, partnerCalls, withPartner } from "./setup.ts";

const users = "/api/restricted/partner/users";
const user = "/api/restricted/partner/user";

describe("partner customers: P3 list, P4 add, P5 update", () => {
  it("adds a customer and lists the exact customer record", async () => {
    const env = await withPartner();
    const added = await env.asPartner("POST", user, {
      body: { ...customerBody("Carla@Example.com"), total_forms_quota: "25" },
    });
    assert.equal(added.status, 200);
    const pid = env.partner.partner_id;
    assert.deepEqual(Object.keys(added.body), ["id", "message", "action_successful", "error"]);
    assert.equal(added.body.message, "User added successfully");
    assert.match(added.body.id, new RegExp(`^partner_${pid}\\|[0-9a-f-]{36}$`));
    const listed = await env.asPartner("GET", users);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, [
      {
        email: "carla@example.com",
        provider_name: `partner_${pid}`,
        first_name: "Carla",
        last_name: "Customer",
        billing_subscription_plan_original_start_date: "0001-01-01T00:00:00",
        billing_subscription_plan_last_payment_date: "0001-01-01T00:00:00",
        partner_client_status: "paying_customer",
        quota_custom_monthly_form_submissions: "100",
        quota_custom_total_forms: "25",
        quota_custom_total_datalists: "10",
        quota_custom_total_datalist_entries_per_datalist: "100",
        quota_custom_total_file_storage: "1000000",
        quota_custom_total_admin_collaborators: "10",
        id: added.body.id,
        created_date_utc: "2026-11-15T10:00:00.000Z",
        modified_date_utc: "0001-01-01T00:00:00",
      },
    ]);
  });

  it("fills in defaults: empty names, free_trial, the service's default quotas", async () => {
    const env = await withPartner({ partners: { quotaDefaults: { total_forms: 3 } } });
    await env.addCustomer({ email: "dan@example.com" });
    const [record] = (await env.asPartner("GET", users)).body;
    assert.equal(record.first_name, "");
    assert.equal(record.partner_client_status, "free_trial");
    assert.equal(record.quota_custom_total_forms, "3");
    assert.equal(record.quota_custom_monthly_form_submissions, "1000");
    assert.equal(record.quota_custom_total_file_storage, "1000000000");
  });

  it("updates only the fields given, by the e-mail in the path, aliases included", async () => {
    const env = await withPartner();
    const id = await env.addCustomer(customerBody("carla@example.com"));
    const [before] = (await env.asPartner("GET", users)).body;
    env.clock.now = new Date("2026-11-16T08:00:00.000Z");
    const updated = await env.asPartner("POST", `${user}/carla%40example.com`, {
      body: {
        subscription_status: "free_trial",
        total_forms_quota: 7,
        quota_custom_total_datalists: "0",
        billing_subscription_plan_last_payment_date: "2026-11-01T00:00:00.0000000Z",
      },
    });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body, {
      id,
      message: "User updated",
      action_successful: true,
      error: "",
    });
    const [after] = (await env.asPartner("GET", users)).body;
    assert.deepEqual(after, {
      ...before,
      partner_client_status: "free_trial",
      quota_custom_total_forms: "7",
      quota_custom_total_datalists: "0",
      billing_subscription_plan_last_payment_date: "2026-11-01T00:00:00.0000000Z",
      modified_date_utc: "2026-11-16T08:00:00.000Z",
    });
    const byUpperCase = await env.asPartner("POST", `${user}/CARLA@example.com`, {
      body: { first_name: "Carlotta" },
    });
    assert.equal(byUpperCase.status, 200);
    assert.equal((await env.asPartner("GET", users)).body[0].first_name, "Carlotta");
  });

  it("shows a partner only its own customers", async () => {
    const env = await withPartner();
    await env.addCustomer(customerBody("carla@example.com"));
    const other = partnerCalls(env.call, await env.service.admin.createPartner({ name: "Other" }));
    assert.deepEqual((await other.asPartner("GET", users)).body, []);
    const update = await other.asPartner("POST", `${user}/carla@example.com`, {
      body: { subscription_status: "free_trial" },
    });
    assert.equal(update.status, 404);
    assert.equal(update.body.error, "not_found");
    const headers = { PartnerCustomerEmail: "carla@example.com" };
    const login = await other.asPartner("POST", "/api/restricted/partner/userauth", { headers });
    assert.equal(login.status, 404);
    assert.equal(
      (await env.asPartner("GET", users)).body[0].partner_client_status,
      "paying_customer",
    );
  });
});

describe("partner customers: bad input", () => {
  it("refuses missing or wrong partner credentials on every partner endpoint", async () => {
    const env = await withPartner();
    await env.addCustomer(customerBody("carla@example.com"));
    const wrong: Record<string, string>[] = [
      { PartnerId: "", PartnerSecret: "" },
      { PartnerId: env.partner.partner_id, PartnerSecret: "" },
      { PartnerId: env.partner.partner_id, PartnerSecret: `${env.partner.partner_secret}x` },
      { PartnerId: "not-a-guid", PartnerSecret: env.partner.partner_secret },
      { PartnerId: "01234567-89ab-7def-8123-456789abcdef", PartnerSecret: "x" },
    ];
    const endpoints: [string, string, unknown][] = [
      ["GET", users, undefined],
      ["POST", user, customerBody("eve@example.com")],
      ["POST", `${user}/carla@example.com`, { subscription_status: "free_trial" }],
      ["POST", "/api/restricted/partner/userauth", undefined],
    ];
    for (const headers of wrong) {
      for (const [method, path, body] of endpoints) {
        const answer = await env.call(method, path, {
          body,
          headers: { ...headers, PartnerCustomerEmail: "carla@example.com" },
        });
        assert.equal(answer.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
        assert.equal(answer.body.error, "unauthorized");
      }
    }
    const listed = (await env.asPartner("GET", users)).body;
    assert.deepEqual(
      listed.map((c: { email: string; partner_client_status: string }) => [
        c.email,
        c.partner_client_status,
      ]),
      [["carla@example.com", "paying_customer"]],
    );
  });

  it("refuses bad customer bodies with the fields at fault, storing nothing", async () => {
    const env = await withPartner();
    const cases: [unknown, string][] = [
      [{ ...customerBody("x@example.com"), total_forms_quota: -1 }, "total_forms_quota"],
      [{ ...customerBody("x@example.com"), total_forms_quota: "-1" }, "total_forms_quota"],
      [
        { ...customerBody("x@example.com"), total_datalists_quota: "many" },
        "total_datalists_quota",
      ],
      [
        { ...customerBody("x@example.com"), total_file_storage_quota: 1.5 },
        "total_file_storage_quota",
      ],
      [
        { ...customerBody("x@example.com"), monthly_form_submissions_quota: "" },
        "monthly_form_submissions_quota",
      ],
      [
        { ...customerBody("x@example.com"), monthly_form_submissions_quota: null },
        "monthly_form_submissions_quota",
      ],
      [{ ...customerBody("x@example.com"), subscription_status: "vip" }, "subscription_status"],
      [
        { ...customerBody("x@example.com"), partner_client_status: "free_trial" },
        "partner_client_status",
      ],
      [{ ...customerBody("x@example.com"), first_name: 7 }, "first_name"],
      [
        { ...customerBody("x@example.com"), billing_subscription_plan_original_start_date: "soon" },
        "billing_subscription_plan_original_start_date",
      ],
      [{ ...customerBody("x@example.com"), email: "not an e-mail" }, "email"],
      [{ first_name: "No e-mail" }, "email"],
    ];
    for (const [body, path] of cases) {
      const answer = await env.asPartner("POST", user, { body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error, "validation_failed");
      assert.ok(
        answer.body.issues.some((issue: { path: string }) => issue.path === path),
        `${path}: ${JSON.stringify(answer.body.issues)}`,
      );
    }
    const malformed = await env.asPartner("POST", user, {
      body: "{ nope",
      headers: { "content-type": "application/json" },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual((await env.asPartner("GET", users)).body, []);
    const login = await env.asPartner("POST", "/api/restricted/partner/userauth", {
      headers: { PartnerCustomerEmail: "x@example.com" },
    });
    assert.equal(login.status, 404);
  });

  it("answers 409 to a second customer with a taken e-mail, 404 to an unknown one", async () => {
    const env = await withPartner();
    await env.addCustomer(customerBody("carla@example.com"));
    await env.user("local@example.com");
    for (const email of ["carla@example.com", "CARLA@example.com", "local@example.com"]) {
      const again = await env.asPartner("POST", user, { body: customerBody(email) });
      assert.equal(again.status, 409, email);
      assert.equal(again.body.error, "conflict");
    }
    assert.equal((await env.asPartner("GET", users)).body.length, 1);
    const unknown = await env.asPartner("POST", `${user}/nobody@example.com`, {
      body: { first_name: "X" },
    });
    assert.equal(unknown.status, 404);
    const local = await env.asPartner("POST", `${user}/local@example.com`, {
      body: { first_name: "X" },
    });
    assert.equal(local.status, 404);
  });

  it("leaves a customer unchanged when P5 is refused", async () => {
    const env = await withPartner();
    await env.addCustomer(customerBody("carla@example.com"));
    const [before] = (await env.asPartner("GET", users)).body;
    const bodies = [
      { first_name: "Changed", total_forms_quota: "-3" },
      { first_name: "Changed", subscription_status: "gold" },
      { first_name: "Changed", total_forms_quota: 4, quota_custom_total_forms: "5" },
      { first_name: "Changed", email: "new@example.com" },
      ["not", "an", "object"],
    ];
    for (const body of bodies) {
      const answer = await env.asPartner("POST", `${user}/carla@example.com`, { body });
      assert.equal(answer.status, 400, JSON.stringify(body));
    }
    const badPath = await env.asPartner("POST", `${user}/not-an-email`, { body: {} });
    assert.equal(badPath.status, 400);
    assert.deepEqual((await env.asPartner("GET", users)).body, [before]);
  });
});
