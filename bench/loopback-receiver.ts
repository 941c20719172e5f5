/**
 * A fast webhook receiver for bench/webhook-throughput.bench.ts, in its own process so that
 * it takes no CPU from the process it measures: answers every POST 200 at once (or after
 * `RECEIVER_DELAY_MS`), counts them, and tells its parent the count when asked over IPC.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

let delayMs = Number(process.env.RECEIVER_DELAY_MS ?? 0);
let received = 0;
const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    received++;
    if (delayMs > 0) setTimeout(() => response.writeHead(200).end(), delayMs);
    else response.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ url: `http://127.0.0.1:${port}/hook` });
});
process.on("message", (message: { reset?: boolean; delayMs?: number }) => {
  if (message.reset) received = 0;
  if (message.delayMs !== undefined) delayMs = message.delayMs;
  process.send?.({ received });
});
process.on("disconnect", () => process.exit(0));
