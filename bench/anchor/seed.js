/**
 * Seeds the anchor's database as `bench/seeded-form.ts` seeds Formwork's store: one account
 * with an API key, one form (`ANCHOR_FORM`, the bench form's JSON body), and `ANCHOR_COUNT`
 * submissions of the same shape, one a millisecond from `ANCHOR_FIRST_MS`, with the form's
 * counter to match. Prints `{ formId, tokens }` as JSON.
 * Env: `ANCHOR_DB`, `ANCHOR_FORM`, `ANCHOR_COUNT` (0 by default), `ANCHOR_FIRST_MS`.
 */
import { randomBytes } from "node:crypto";
import { v7 } from "uuid";
import { hashSecret, openDatabase } from "./database.js";

const db = openDatabase(process.env.ANCHOR_DB ?? "anchor.db");
const formBody = JSON.parse(process.env.ANCHOR_FORM ?? "{}");
const count = Number(process.env.ANCHOR_COUNT ?? 0);
const firstMs = Number(process.env.ANCHOR_FIRST_MS ?? Date.now() - count);

const accountId = v7();
const tokens = { TokenId: v7(), TokenSecret: randomBytes(32).toString("base64url") };
const formId = v7();
const name = formBody.form_configuration.settings.form_name;
const insert = db.prepare(
  "INSERT INTO submissions (id, form_id, created_ms, body) VALUES (?, ?, ?, ?)",
);
db.transaction(() => {
  db.prepare("INSERT INTO accounts VALUES (?, ?)").run(accountId, "bench@example.com");
  db.prepare("INSERT INTO api_keys VALUES (?, ?, ?)").run(
    tokens.TokenId,
    hashSecret(tokens.TokenSecret),
    accountId,
  );
  db.prepare("INSERT INTO forms VALUES (?, ?, ?, ?)").run(
    formId,
    accountId,
    name,
    JSON.stringify(formBody.form_definition),
  );
  db.prepare("INSERT INTO form_counters VALUES (?, ?)").run(formId, count);
  for (let n = 0; n < count; n++) {
    const record = {
      id: v7({ msecs: firstMs + n }),
      form_id: formId,
      stale_form_name: name,
      created_by_verified_email_address: "",
      created_by_device: { client_ip_address: "", client_ip_country_code: "" },
      form_fields: [{ unique_system_name: "name_1", submitted_value: `Person ${n}` }],
      search_words: ["person", String(n)],
      is_draft_submission: false,
      created_date_utc: new Date(firstMs + n).toISOString(),
      modified_date_utc: "0001-01-01T00:00:00",
    };
    insert.run(record.id, formId, firstMs + n, JSON.stringify(record));
  }
})();
db.close();
console.log(JSON.stringify({ formId, tokens }));
