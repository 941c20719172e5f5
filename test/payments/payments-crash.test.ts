/**
 * Payment events cut by kill -9 (docs/design.md §26, §12): a server taking payments through
 * the local Stripe server is killed while it settles a burst of Stripe's events, restarted
 * on the same data, and sent every event again, as Stripe does for events it got no answer
 * to. Each payment is then settled exactly once: the paid ones paid with one webhook
 * delivery each, the expired ones expired with their inventory given back, and the counts
 * equal to the records. Run on both stores a server keeps its data in: the standalone
 * server on lowdb, and the Azure server (`examples/azure/server.ts`, bundled) on the Cosmos
 * DB stand-in and Azurite.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type StandaloneServer, startServer } from "../../bench/standalone-process.ts";
import { bundleAzureServer } from "../crash/azure-bundle.ts";
import { startAzurite } from "../emulators/azurite.ts";
import { startCosmosProcess } from "../emulators/cosmos-process.ts";
import { adminHeaders, adminSecret, call } from "../standalone/crash-fixture.ts";
import { start } from "../standalone/server-process.ts";
import { eventually, startReceiver } from "../webhooks/receiver.ts";
import { type SignedEvent, startStripeServer } from "./stripe-server.ts";

const orders = 40;

const formBody = {
  form_configuration: { settings: { form_name: "Tickets", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          { unique_system_name: "day_2", type: "radio", label: "Day", options: ["sat", "sun"] },
        ],
      },
    ],
  },
};

/** Where a run keeps its data: the server to start (again) and what it is given. */
interface Target {
  start(env: Record<string, string>): Promise<StandaloneServer>;
  env: Record<string, string>;
}

/** The standalone server on a lowdb folder. */
async function lowdbTarget(): Promise<Target> {
  return { start, env: {} };
}

/** The Azure server on the Cosmos DB stand-in and Azurite, each a process of its own. */
async function cosmosTarget(): Promise<Target> {
  const [cosmos, azurite, server] = await Promise.all([
    startCosmosProcess(),
    startAzurite(),
    bundleAzureServer(),
  ]);
  after(() => cosmos.stop());
  return {
    start: (env) => startServer({ PORT: "0", ...env }, server),
    env: {
      CUSTOMER_TOKEN_SECRET: "the payments crash test's customer token secret",
      COSMOS_ENDPOINT: cosmos.endpoint,
      COSMOS_KEY: cosmos.key,
      COSMOS_DATABASE: "payments",
      COSMOS_ENDPOINT_DISCOVERY: "0",
      AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
      // The restarted instance finishes soon what the killed one left half done (docs/design.md §13).
      COSMOS_RECOVERY_INTERVAL_MS: "1000",
      COSMOS_INTENT_GRACE_MS: "2000",
      LOG_LEVEL: "error",
    },
  };
}

describe("payment events cut by kill -9", { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  for (const [name, target] of [
    ["lowdb", lowdbTarget],
    ["Cosmos DB and Blob Storage", cosmosTarget],
  ] as const) {
    it(`settles every payment exactly once when the provider sends its events again, on ${name}`, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-payments-"));
      dirs.push(dataDir);
      await settlesOnce(await target(), dataDir);
    });
  }
});

async function settlesOnce({ start, env: targetEnv }: Target, dataDir: string) {
  const stripe = await startStripeServer();
  after(() => stripe.close());
  const env = {
    ...targetEnv,
    DATA_DIR: dataDir,
    ADMIN_SECRET: adminSecret,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_API_URL: stripe.url,
    ALLOW_PRIVATE_WEBHOOKS: "1",
    // A delivery the killed process held comes due again soon after the restart.
    WEBHOOK_LEASE_MS: "2000",
  };
  let server = await start(env);
  after(() => server.child.kill("SIGKILL"));
  const receiver = await startReceiver([200]);
  const account = await call(server, "POST", "/api/admin/accounts", adminHeaders, {
    email: "owner@example.com",
  });
  const auth = { TokenId: account.body.token_id, TokenSecret: account.body.token_secret };
  const form = await call(server, "POST", "/api/restricted/form", auth, formBody);
  const formId = form.body.id as string;
  const settings = (section: string, body: unknown) =>
    call(
      server,
      "POST",
      `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`,
      auth,
      body,
    );
  const inventory = [{ unique_system_name: "day_2", option: "sat", quantity: 1000 }];
  assert.equal((await settings("quantitylimitsettings", { inventory })).status, 200);
  const payment = { enabled: true, currency: "EUR", amount: 2500 };
  assert.equal((await settings("paymentsettings", payment)).status, 200);
  const hooks = `/api/restricted/form/${formId}/submissionwebhook`;
  const hook = await call(server, "POST", hooks, auth, {
    webhook_name: "orders",
    webhook_url: receiver.url,
  });
  assert.equal(hook.status, 200, JSON.stringify(hook.body));

  // The orders, and Stripe's event for each: even ones paid, odd ones expired.
  const events: (SignedEvent & { id: string; paid: boolean })[] = [];
  for (let n = 0; n < orders; n++) {
    const posted = await call(
      server,
      "POST",
      `/api/form/${formId}/submission`,
      {},
      {
        form_fields: [
          { unique_system_name: "name_1", submitted_value: `buyer ${n}` },
          { unique_system_name: "day_2", submitted_value: "sat" },
        ],
      },
    );
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const id = posted.body.id as string;
    const page = new URL(posted.body.thanks_behaviour_redirect_url);
    const checkout = decodeURIComponent(page.pathname.split("/").at(-1) ?? "");
    const paid = n % 2 === 0;
    const signed = paid ? await stripe.pay(checkout) : await stripe.expire(checkout);
    events.push({ id, paid, ...signed });
  }
  const send = (target: StandaloneServer, event: (typeof events)[number]) =>
    fetch(`${target.base}/api/payments/stripe/events`, {
      method: "POST",
      headers: event.headers,
      body: Buffer.from(event.body),
    }).then((answer) => answer.status);

  // The burst, cut by kill -9 once the first webhook of a payment arrives.
  const killed = receiver.waitFor(1, 60_000).then(() => server.child.kill("SIGKILL"));
  const first = await Promise.allSettled(events.map((event) => send(server, event)));
  await killed;
  const unanswered = first.filter((result) => result.status === "rejected").length;
  assert.ok(unanswered > 0, "the kill came after every event was answered");

  // The provider sends every event again, to the restarted server: each changes nothing twice.
  server = await start(env);
  for (const event of events) assert.equal(await send(server, event), 200);
  for (const event of events) assert.equal(await send(server, event), 200);

  const listed = await call(
    server,
    "GET",
    `/api/restricted/form/${formId}/submissions?batchSize=1000`,
    auth,
  );
  const status = new Map<string, string>(
    listed.body.results.map((r: { id: string; payment_status: string }) => [
      r.id,
      r.payment_status,
    ]),
  );
  for (const event of events) assert.equal(status.get(event.id), event.paid ? "paid" : "expired");
  const rendered = await call(server, "GET", `/api/form/${formId}`, {});
  const remaining = rendered.body.form_configuration.quantitylimitsettings.inventory[0].remaining;
  assert.equal(remaining, 1000 - orders / 2);

  // One delivery per paid order, none for an expired one; each reached the receiver.
  assert.deepEqual(stripe.problems, [], "every answer matched Stripe's published schemas");
  const paidIds = events
    .filter((event) => event.paid)
    .map((event) => event.id)
    .sort();
  const delivered = async () => {
    const listed = await call(
      server,
      "GET",
      `${hooks}/${hook.body.id}/deliveries?batchSize=1000`,
      auth,
    );
    return listed.body.results.map((d: { submission_id: string }) => d.submission_id).sort();
  };
  // On Cosmos DB a delivery follows its settlement's intent (docs/design.md §13): where the
  // kill came between the two, the restarted instance's recovery writes it within seconds.
  await eventually(async () => (await delivered()).length >= paidIds.length, 60_000);
  assert.deepEqual(await delivered(), paidIds);
  // At least once: a delivery the kill cut may arrive twice, with the same webhook-id.
  const heard = () =>
    new Set(receiver.received.map((r) => JSON.parse(r.body).data.form_submission.id as string));
  for (let count = orders / 2; heard().size < paidIds.length; count++) {
    await receiver.waitFor(count, 60_000);
  }
  assert.deepEqual([...heard()].sort(), paidIds);
}
