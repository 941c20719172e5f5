/** A loopback HTTP server that keeps the bodies posted to it, for webhook tests. */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

/** A running receiver. */
export interface Receiver {
  /** Where to point a webhook. */
  url: string;
  /** Waits (10 s at most) until `count` bodies have arrived, and answers them. */
  bodies(count: number): Promise<string[]>;
}

/** Starts a receiver answering 200 to everything; it is closed after the test file. */
export async function startReceiver(): Promise<Receiver> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push(body);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async bodies(count) {
      for (let waited = 0; received.length < count && waited < 10_000; waited += 50) {
        await sleep(50);
      }
      assert.ok(received.length >= count, `only ${received.length} of ${count} bodies arrived`);
      return received.slice(0, count);
    },
  };
}
