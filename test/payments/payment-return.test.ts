/**
 * The respondent's way back from a checkout (docs/design.md §26) through HTTP on every store:
 * the payment status read with the return token, and a new checkout for a submission still
 * pending, whose old checkout's `expired` event then changes nothing.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createStripePayments } from "../../adapters/stripe/index.ts";
import { createFormService } from "../../src/index.ts";
import { sectionPath } from "../engine/fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import type { SignedEvent } from "./stripe-server.ts";
import { startStripeServer } from "./stripe-server.ts";

const fields = [{ unique_system_name: "name_1", type: "text", label: "Name", required: true }];

describe("payments: back from the checkout", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`reads the status with the token and opens a new checkout for a pending order (${name})`, async () => {
      const clock = { now: new Date("2026-11-20T10:10:00.000Z") };
      const server = await startStripeServer({ now: () => clock.now.getTime() });
      after(() => server.close());
      const payments = createStripePayments({
        secretKey: server.secretKey,
        webhookSecret: server.webhookSecret,
        apiUrl: server.url,
        now: () => clock.now.getTime(),
      });
      const service = createFormService({
        store: serviceQueriesOnly(await open()),
        payments,
        now: () => clock.now,
      });
      const call = (method: string, path: string, send: Parameters<typeof request>[3] = {}) =>
        request(service, method, path, send);
      const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
      const formId = (
        await call("POST", "/api/restricted/form", {
          as: alice,
          body: formInput("Tickets", fields),
        })
      ).body.id as string;
      const section = { enabled: true, currency: "EUR", amount: 1500 };
      const saved = await call("POST", sectionPath(formId, "paymentsettings"), {
        as: alice,
        body: section,
      });
      assert.equal(saved.status, 200);
      /** A new order: its id, its checkout and its return token. */
      const order = async () => {
        const body = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };
        const posted = await call("POST", `/api/form/${formId}/submission`, { body });
        const checkout = new URL(posted.body.thanks_behaviour_redirect_url).pathname.slice(5);
        const back = new URL(server.session(checkout).cancelUrl as string);
        assert.equal(back.searchParams.get("payment"), "cancel");
        const token = back.searchParams.get("token") as string;
        return { id: posted.body.id as string, checkout, token };
      };
      const path = (id: string) => `/api/form/${formId}/submission/${id}/payment`;
      const status = async (id: string, token: string) => call("GET", `${path(id)}?token=${token}`);
      const retry = async (id: string, token: string) =>
        call("POST", `${path(id)}/checkout?token=${token}`);
      const deliver = ({ body, headers }: SignedEvent) =>
        call("POST", "/api/payments/stripe/events", {
          body: new TextDecoder().decode(body),
          headers: Object.fromEntries(headers),
        });

      const a = await order();
      assert.deepEqual((await status(a.id, a.token)).body, { id: a.id, payment_status: "pending" });
      // Another submission's token, or a forged one, reads nothing.
      const b = await order();
      assert.equal((await status(a.id, b.token)).status, 404);
      assert.equal(
        (await status(a.id, `${a.token[0] === "A" ? "B" : "A"}${a.token.slice(1)}`)).status,
        404,
      );
      assert.equal((await retry(a.id, b.token)).status, 404);

      // Tried again: a new checkout, the old one ended; its `expired` event changes nothing.
      const again = await retry(a.id, a.token);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.payment_status, "pending");
      const second = new URL(again.body.checkout_url).pathname.slice(5);
      assert.notEqual(second, a.checkout);
      assert.equal(server.session(a.checkout).status, "expired");
      // Stripe sends the ended checkout's event.
      const expired = await server.expire(a.checkout);
      assert.equal((await deliver(expired)).status, 200);
      assert.equal((await status(a.id, a.token)).body.payment_status, "pending");
      assert.equal((await deliver(await server.pay(second))).status, 200);
      assert.equal((await status(a.id, a.token)).body.payment_status, "paid");
      // Paid: nothing more to open.
      assert.deepEqual((await retry(a.id, a.token)).body, { id: a.id, payment_status: "paid" });

      // Expired: it can no longer be paid.
      assert.equal((await deliver(await server.expire(b.checkout))).status, 200);
      assert.deepEqual((await retry(b.id, b.token)).body, { id: b.id, payment_status: "expired" });

      // Paid meanwhile, its event not in yet: trying again settles it paid and ends the new one.
      const c = await order();
      await server.pay(c.checkout);
      assert.deepEqual((await retry(c.id, c.token)).body, { id: c.id, payment_status: "paid" });
      const read = await call("GET", `/api/restricted/form/${formId}/submission/${c.id}`, {
        as: alice,
      });
      assert.equal(read.body.form_submission.payment_reference, c.checkout);

      // The sweep asks about a checkout opened again in its own expiry hour, not the first's.
      const longer = { ...section, expires_after_minutes: 240 };
      const resaved = await call("POST", sectionPath(formId, "paymentsettings"), {
        as: alice,
        body: longer,
      });
      assert.equal(resaved.status, 200);
      const d = await order();
      const later = (minutes: number) => {
        clock.now = new Date(clock.now.getTime() + minutes * 60_000);
      };
      later(239);
      const reopened = await retry(d.id, d.token);
      assert.equal(reopened.status, 200, JSON.stringify(reopened.body));
      const third = new URL(reopened.body.checkout_url).pathname.slice(5);
      later(1 + 121);
      await service.sweepAttachments();
      assert.equal((await status(d.id, d.token)).body.payment_status, "pending");
      assert.equal(server.session(third).status, "open");
      later(240);
      await service.sweepAttachments();
      assert.equal((await status(d.id, d.token)).body.payment_status, "expired");
      await service.close();
    });
  }
});
