/**
 * Access by respondent (docs/design.md §6), on every store: one NDJSON line per submission
 * of the respondent across the caller's forms, as S1 shows it, with whole signed links.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { storeKinds } from "../store-kinds.ts";
import { submissionPath, threeForms } from "./respondent-forms.ts";

describe("access export by respondent", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`streams each submission as S1 shows it, with signed links to its files (${name})`, async () => {
      const env = await threeForms(open);
      const { alice, forms, ada } = env;
      const exported = await env.exportOf("ADA@example.com", { as: alice });
      assert.equal(exported.status, 200);
      assert.equal(exported.type, "application/x-ndjson; charset=utf-8");
      const byForm = new Map(exported.lines.map((line) => [line.form_id, line]));
      assert.deepEqual([...byForm.keys()].sort(), [forms.apply, forms.news, forms.tea].sort());
      const line = byForm.get(forms.apply);
      assert.equal(line.form_name, "Applications");
      const s1 = await env.call("GET", submissionPath(forms.apply, ada.apply), { as: alice });
      assert.deepEqual(line.form_submission, s1.body.form_submission);
      assert.deepEqual(
        line.attachment_details.map((d: { attachment: unknown }) => d.attachment),
        s1.body.attachment_details.map((d: { attachment: unknown }) => d.attachment),
      );
      assert.match(line.attachment_details[0].attachment_sas_uri, /^\?sv=/);
      const download = await env.service.fetch(
        new Request(line.attachment_details[0].attachment_url),
      );
      assert.equal(download.status, 200);
      assert.equal(await download.text(), "a file of the respondent's");
      assert.equal(byForm.get(forms.tea).form_submission.id, ada.tea);
      assert.deepEqual(Object.keys(byForm.get(forms.news)).sort(), [
        "attachment_details",
        "form_id",
        "form_name",
        "form_submission",
      ]);
      assert.equal((await env.exportOf("nobody@example.com", { as: alice })).text, "");
      await env.service.close();
    });
  }
});
