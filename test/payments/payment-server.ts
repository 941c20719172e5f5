/**
 * A server taking payments for the kill -9 test (payments-crash.test.ts): the service over
 * lowdb in `DATA_DIR`, its provider the test one whose events are signed with
 * `PAYMENT_SECRET`, on a free port of 127.0.0.1. Prints `listening on <url>` once it serves.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createFormService } from "../../src/index.ts";
import { createTestProvider } from "./provider.ts";

const directory = process.env.DATA_DIR ?? "";
const service = createFormService({
  store: createLowdbStore({ directory }),
  payments: createTestProvider(process.env.PAYMENT_SECRET).payments,
  adminSecret: process.env.ADMIN_SECRET,
  allowPrivateWebhookDestinations: true,
  webhookPollMs: 50,
  // A delivery the killed process held comes due again soon after the restart.
  webhookLeaseMs: 2000,
});
const server = createServer(
  getRequestListener((request, env) =>
    service.fetch(request, { clientAddress: env.incoming.socket.remoteAddress }),
  ),
);
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${port}`);
});
