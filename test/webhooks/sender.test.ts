import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHttpWebhookSender } from "../../src/index.ts";
import type { AttemptOutcome } from "../../src/ports/index.ts";
import { startReceiver } from "./receiver.ts";

describe("the HTTP webhook sender", () => {
  it("records why a request could not be made at all, and does not retry it", async () => {
    const receiver = await startReceiver([200]);
    const sender = createHttpWebhookSender({ allowPrivateDestinations: true, retryBaseMs: 1 });
    const outcomes: [number, AttemptOutcome][] = [];
    const result = await sender.deliver(
      {
        url: receiver.url,
        id: "msg_1",
        payload: "{}",
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        // A value Node will not send (stored before W2 checked header values).
        headers: { "X-Key": "é✓" },
      },
      {
        attemptsMade: 0,
        signal: new AbortController().signal,
        beforeAttempt: async () => true,
        afterAttempt: async (attempt, outcome) => {
          outcomes.push([attempt, outcome]);
        },
      },
    );
    assert.deepEqual(result, { status: "failed", attempts: 1 });
    assert.equal(outcomes.length, 1);
    const [attempt, outcome] = outcomes[0] ?? [];
    assert.equal(attempt, 1);
    assert.equal(outcome?.kind, "refused");
    assert.match(outcome?.kind === "refused" ? outcome.message : "", /could not be made: .*X-Key/);
    assert.equal(receiver.received.length, 0);
  });
});
