/**
 * The hosted page of a paying form in Chromium (docs/design.md §21, §26): the page follows
 * S2's redirect to the checkout (the local Stripe server's page), the checkout sends the
 * respondent back, and the page shows the payment's state from the service, whose status
 * the local server's signed event settled; a checkout left unpaid is tried again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { createStripePayments } from "../../adapters/stripe/index.ts";
import type { Payments } from "../../src/ports/index.ts";
import {
  type StripeServer,
  type StripeServerOptions,
  startStripeServer,
} from "../payments/stripe-server.ts";
import { assertFits, browserSession } from "./session.ts";

describe("hosted form page in Chromium: paying", { timeout: 120_000 }, () => {
  const stripeOptions: StripeServerOptions = {};
  let stripe: StripeServer;
  let adapter: Payments;
  before(async () => {
    stripe = await startStripeServer(stripeOptions);
    adapter = createStripePayments({
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      apiUrl: stripe.url,
    });
  });
  after(async () => {
    assert.deepEqual(stripe.problems, [], "every answer matched Stripe's published schemas");
    await stripe.close();
  });
  // The service starts before the local Stripe server's address is known: it calls the
  // real adapter made then.
  const payments: Payments = {
    provider: "stripe",
    startCheckout: (request) => adapter.startCheckout(request),
    readCheckout: (checkout) => adapter.readCheckout(checkout),
    expireCheckout: (checkout) => adapter.expireCheckout(checkout),
    parseEvent: (body, headers) => adapter.parseEvent(body, headers),
  };
  const s = browserSession({ payments });

  /** Fills the form in and submits it; answers the checkout's id once its page is shown. */
  async function checkout(page: Page, formId: string, name: string): Promise<string> {
    await page.goto(`${s.env.base}/f/${formId}`);
    await page.getByRole("textbox", { name: "Name" }).fill(name);
    await page.getByRole("button", { name: "Submit" }).click();
    await page.waitForURL((url) => url.origin === stripe.url && url.pathname.startsWith("/pay/"));
    return decodeURIComponent(new URL(page.url()).pathname.slice(5));
  }

  /** The page's shown state, once it says `text`. */
  async function shown(page: Page, text: string) {
    const status = page.getByRole("status");
    await status.filter({ hasText: text }).waitFor();
    return status.textContent();
  }

  it("goes to the checkout and back: paid; left unpaid: not completed, then tried again", async () => {
    stripeOptions.webhookUrl = `${s.env.base}/api/payments/stripe/events`;
    const formId = await s.createForm(
      "Tickets",
      [{ unique_system_name: "name_1", type: "text", label: "Name", required: true }],
      { paymentsettings: { enabled: true, currency: "EUR", amount: 1500 } },
    );
    const page = await s.openPage([new URL(stripe.url).host]);

    // Paid: the checkout's event settles the submission, and the page says so.
    const first = await checkout(page, formId, "Ada");
    await page.getByRole("button", { name: "Pay 15.00 EUR" }).click();
    await page.waitForURL((url) => url.searchParams.get("payment") === "paid");
    assert.equal(await shown(page, "Payment received"), "Payment received. Thank you!");
    assert.equal(await page.locator("form").isVisible(), false);
    const paidId = new URL(page.url()).searchParams.get("submission") as string;

    // Left unpaid: the page offers a new checkout for the same submission.
    const left = await checkout(page, formId, "Grace");
    await page.getByRole("button", { name: "Back" }).click();
    await page.waitForURL((url) => url.searchParams.get("payment") === "cancel");
    await shown(page, "Payment not completed.");
    // The state and its button fit a phone's width too.
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 390);
    const back = new URL(page.url());
    const pendingId = back.searchParams.get("submission") as string;
    const token = back.searchParams.get("token") as string;
    await page.getByRole("button", { name: "Try again" }).click();
    await page.waitForURL((url) => url.origin === stripe.url && url.pathname.startsWith("/pay/"));
    const again = decodeURIComponent(new URL(page.url()).pathname.slice(5));
    assert.notEqual(again, left);
    assert.equal(stripe.session(left).status, "expired", "the checkout left is ended");
    // This time the event is late: the page confirms until it arrives.
    const webhookUrl = stripeOptions.webhookUrl;
    stripeOptions.webhookUrl = undefined;
    await page.getByRole("button", { name: "Pay 15.00 EUR" }).click();
    await page.waitForURL((url) => url.searchParams.get("payment") === "paid");
    await shown(page, "Confirming payment…");
    const late = stripe.events.at(-1);
    assert.equal(late?.event.type, "checkout.session.completed");
    const delivered = await fetch(webhookUrl as string, {
      method: "POST",
      body: Buffer.from(late?.body ?? []),
      headers: late?.headers,
    });
    assert.equal(delivered.status, 200);
    await shown(page, "Payment received");

    type Paid = { id: string; payment_status?: string; payment_reference?: string };
    const listed: Paid[] = (await s.submissions(formId)).results;
    const byId = new Map(listed.map((r) => [r.id, r]));
    assert.equal(byId.size, 2);
    assert.deepEqual(
      [byId.get(paidId)?.payment_status, byId.get(paidId)?.payment_reference],
      ["paid", first],
    );
    assert.deepEqual(
      [byId.get(pendingId)?.payment_status, byId.get(pendingId)?.payment_reference],
      ["paid", again],
    );

    // The token is the credential: another submission's, or none, reads nothing.
    const status = (id: string, t: string) =>
      fetch(`${s.env.base}/api/form/${formId}/submission/${id}/payment?token=${t}`);
    assert.equal((await status(pendingId, token)).status, 200);
    assert.equal((await status(paidId, token)).status, 404);
    assert.equal((await status(pendingId, "")).status, 404);
    // Paid already: trying again opens nothing.
    const retried = await fetch(
      `${s.env.base}/api/form/${formId}/submission/${pendingId}/payment/checkout?token=${token}`,
      { method: "POST" },
    );
    assert.deepEqual(await retried.json(), { id: pendingId, payment_status: "paid" });
    assert.deepEqual(s.strays, []);
  });
});
