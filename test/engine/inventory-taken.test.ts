/**
 * Limited options (docs/design.md §11): a submission gives back exactly the inventory it
 * took (S6, S7), whatever the settings say by then, on memory and lowdb.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inventoryStores, ok, withSessions } from "./inventory-fixture.ts";

for (const [kind, create] of inventoryStores) {
  describe(`form engine: inventory taken, given back (${kind})`, () => {
    it("S7 gives back what the submission took, not what the settings say now", async () => {
      const env = await withSessions({ am: 1 }, { store: await create() });
      const morning = ok(await env.post("am"));
      // Chosen while pm is not limited: takes nothing.
      const early = ok(await env.post("pm"));
      await env.limit({ pm: 1 });
      ok(await env.post("pm"));
      assert.deepEqual(await env.remaining(), { pm: 0 });
      assert.equal((await env.remove(early)).status, 200);
      assert.deepEqual(await env.remaining(), { pm: 0 }, "gave back a pm it never took");
      assert.equal((await env.post("pm")).status, 400);
      // am is no longer limited, but this submission took one: it is given back.
      assert.equal((await env.remove(morning)).status, 200);
      await env.limit({ am: 1, pm: 1 });
      assert.deepEqual(await env.remaining(), { am: 1, pm: 0 }, "kept an am nobody holds");
      ok(await env.post("am"));
    });

    it("S6 gives back what was taken and takes what it newly chooses", async () => {
      const env = await withSessions({ am: 1 }, { store: await create() });
      const morning = ok(await env.post("am"));
      await env.limit({ pm: 1 });
      assert.equal((await env.update(morning, { session_8: "pm" })).status, 200);
      await env.limit({ am: 1, pm: 1 });
      assert.deepEqual(await env.remaining(), { am: 1, pm: 0 });
      // Moving back takes am and gives back pm, in one write.
      assert.equal((await env.update(morning, { session_8: "am" })).status, 200);
      assert.deepEqual(await env.remaining(), { am: 0, pm: 1 });
    });

    it("S6 of another field takes nothing for a choice made before it was limited", async () => {
      const env = await withSessions({}, { store: await create() });
      const early = ok(await env.post("eve"));
      await env.limit({ eve: 1 });
      ok(await env.post("eve"));
      const renamed = await env.update(early, { name_1: "Grace" });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.deepEqual(await env.remaining(), { eve: 0 });
      assert.equal((await env.remove(early)).status, 200);
      assert.deepEqual(await env.remaining(), { eve: 0 });
    });

    it("S6 that newly chooses a sold-out option is refused and changes nothing", async () => {
      const env = await withSessions({ am: 1, pm: 2 }, { store: await create() });
      ok(await env.post("am"));
      const evening = ok(await env.post("pm"));
      const refused = await env.update(evening, { session_8: "am", name_1: "Grace" });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.issues, [{ path: "session_8", message: "am is sold out" }]);
      assert.deepEqual(await env.remaining(), { am: 0, pm: 1 });
      assert.equal((await env.stored(evening)).name_1, "Ada");
    });

    it("a draft takes nothing until S6 clears its flag; then it takes what it chooses", async () => {
      const env = await withSessions({ am: 1 }, { store: await create() });
      const draft = ok(await env.post("am", true));
      const other = ok(await env.post("am", true));
      assert.deepEqual(await env.remaining(), { am: 1 });
      assert.equal((await env.update(draft, {}, false)).status, 200);
      assert.deepEqual(await env.remaining(), { am: 0 });
      const late = await env.update(other, {}, false);
      assert.equal(late.status, 400);
      assert.deepEqual(late.body.issues, [{ path: "session_8", message: "am is sold out" }]);
      assert.equal(
        (
          await env.call("GET", `/api/restricted/form/${env.formId}/submission/${other}`, {
            as: env.alice,
          })
        ).body.form_submission.is_draft_submission,
        true,
      );
      assert.equal((await env.remove(draft)).status, 200);
      assert.equal((await env.update(other, {}, false)).status, 200);
      assert.deepEqual(await env.remaining(), { am: 0 });
    });
  });
}
