/**
 * Limited options (docs/design.md §11): concurrent S2s, S6s and S7s over a limited option
 * keep its count exact: what F5 says remains is the quantity less the stored non-draft
 * submissions holding it, on memory and lowdb.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inventoryStores, ok, withSessions } from "./inventory-fixture.ts";

interface Listed {
  id: string;
  is_draft_submission: boolean;
  form_fields: { unique_system_name: string; submitted_value: string }[];
}

for (const [kind, create] of inventoryStores) {
  describe(`form engine: inventory under concurrent S2, S6 and S7 (${kind})`, () => {
    it("keeps the counts equal to the stored submissions holding each option", {
      timeout: 120_000,
    }, async () => {
      const env = await withSessions({ am: 4, pm: 50 }, { store: await create() });
      const evenings: string[] = [];
      for (let n = 0; n < 10; n++) evenings.push(ok(await env.post("pm")));
      const drafts: string[] = [];
      for (let n = 0; n < 4; n++) drafts.push(ok(await env.post("am", true)));
      const moves = evenings.map((id) => env.update(id, { session_8: "am" }));
      const cleared = drafts.map((id) => env.update(id, {}, false));
      const deletes = evenings.slice(0, 5).map((id) => env.remove(id));
      const posts = Array.from({ length: 5 }, () => env.post("am"));
      const [moved, clearedAnswers, deleted, posted] = await Promise.all([
        Promise.all(moves),
        Promise.all(cleared),
        Promise.all(deletes),
        Promise.all(posts),
      ]);
      // A move may find its submission deleted (404) or the option gone (400); nothing else.
      for (const answer of moved) assert.ok([200, 400, 404].includes(answer.status));
      for (const answer of [...clearedAnswers, ...posted]) {
        assert.ok([200, 400].includes(answer.status), JSON.stringify(answer.body));
      }
      for (const answer of deleted) assert.equal(answer.status, 200);
      const refused = [...moved, ...clearedAnswers, ...posted].filter((a) => a.status === 400);
      // 19 asked for am; at most 4 plus the 5 deleted could have it.
      assert.ok(refused.length >= 10, `${refused.length} refused`);

      const listed = await env.call("GET", `/api/restricted/form/${env.formId}/submissions`, {
        as: env.alice,
      });
      const holding = { am: 0, pm: 0 };
      for (const submission of listed.body.results as Listed[]) {
        if (submission.is_draft_submission) continue;
        const session = submission.form_fields.find((f) => f.unique_system_name === "session_8");
        holding[session?.submitted_value as "am" | "pm"]++;
      }
      assert.ok(holding.am <= 4 && holding.am > 0, JSON.stringify(holding));
      assert.deepEqual(await env.remaining(), { am: 4 - holding.am, pm: 50 - holding.pm });
    });
  });
}
