/**
 * The bundled standalone server with Stripe's keys set: it loads the Stripe adapter (its own
 * chunk of the bundle) and serves, pointed by `STRIPE_API_URL` at the local Stripe server.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startStripeServer } from "../payments/stripe-server.ts";
import { start, stop } from "./server-process.ts";

describe("the standalone server with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET", () => {
  it("starts, serves and stops", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-stripe-"));
    const stripe = await startStripeServer();
    try {
      const server = await start({
        DATA_DIR: dataDir,
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_API_URL: stripe.url,
      });
      try {
        assert.equal((await fetch(`${server.base}/readyz`)).status, 200);
      } finally {
        assert.equal(await stop(server.child), 0);
      }
    } finally {
      await stripe.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
