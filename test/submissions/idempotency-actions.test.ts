import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { withActionForm } from "../mail/action-setup.ts";

/**
 * An S2 with an `Idempotency-Key` to a form with a destination post: the key is `running`
 * while the post's first attempt runs (409 to a retry), then keeps the answer with its flags
 * (docs/design.md §6).
 */
describe("Idempotency-Key while S2's actions run", () => {
  it("answers a retry 409 until the first answer is complete, then replays it", async () => {
    const held: ServerResponse[] = [];
    let arrived: () => void = () => {};
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let released = false;
    const receiver = createServer((_request, response) => {
      // The outbox's retries, once the first attempt is answered, are taken at once.
      if (released) return response.writeHead(200).end();
      held.push(response);
      arrived();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    after(() => new Promise((resolve) => receiver.close(resolve)));
    const { port } = receiver.address() as AddressInfo;
    const env = await withActionForm({ actionTimeoutMs: 10_000 });
    await env.destination(`http://127.0.0.1:${port}/hook`);
    const body = {
      form_fields: [{ unique_system_name: "name_2", submitted_value: "Ann" }],
    };
    const post = () =>
      env.call("POST", `/api/form/${env.formId}/submission`, {
        body,
        headers: { "Idempotency-Key": "with-actions" },
      });
    const first = post();
    await arrival;
    const during = await post();
    assert.equal(during.status, 409);
    assert.equal(during.body.error, "idempotency_conflict");
    released = true;
    for (const response of held) response.writeHead(500).end();
    const answered = await first;
    assert.equal(answered.status, 200);
    assert.equal(answered.body.cloud_database_post_expected_but_failed, true);
    const replayed = await post();
    assert.equal(replayed.status, 200);
    assert.equal(replayed.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(replayed.body, answered.body);
  });
});
