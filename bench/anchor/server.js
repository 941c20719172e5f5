/**
 * The anchor server (docs/design.md §22): S2 and S5 as a developer would write them with
 * Fastify 5, ajv and better-sqlite3, the yardstick `bench/versus-anchor.bench.ts` holds
 * Formwork to. Same paths, bodies and answers' shape as Formwork's:
 * - S2 reads the form, validates the body against a schema compiled from its definition
 *   (ajv, kept per form), then raises the form's counter and inserts the submission in one
 *   transaction;
 * - S5 does the reads Formwork's authentication and authorization do (the API key, its
 *   account, the form, the caller's roles unless the owner), then reads a page of 100 in a
 *   date window on the index over form, time and id, and records the read in the audit
 *   trail: one entry naming the page's submissions, as Formwork's S5 writes (an account of
 *   who read whose personal data is what a form backend owes its respondents).
 * Env: `ANCHOR_DB` (the database file), `ANCHOR_SYNCHRONOUS` (`NORMAL` or `FULL`), `PORT`.
 * Prints `anchor listening on http://…` when ready; stops on SIGTERM.
 */
import { timingSafeEqual } from "node:crypto";
import Ajv from "ajv";
import Fastify from "fastify";
import { v7 } from "uuid";
import { hashSecret, openDatabase, searchWordsOf } from "./database.js";

const db = openDatabase(process.env.ANCHOR_DB ?? "anchor.db", process.env.ANCHOR_SYNCHRONOUS);
const statements = {
  apiKey: db.prepare("SELECT secret_hash, account_id FROM api_keys WHERE token_id = ?"),
  account: db.prepare("SELECT id, email FROM accounts WHERE id = ?"),
  form: db.prepare("SELECT id, owner_id, name, definition FROM forms WHERE id = ?"),
  roles: db.prepare("SELECT roles FROM form_users WHERE form_id = ? AND account_id = ?"),
  raise: db.prepare("UPDATE form_counters SET submissions = submissions + 1 WHERE form_id = ?"),
  insert: db.prepare("INSERT INTO submissions (id, form_id, created_ms, body) VALUES (?, ?, ?, ?)"),
  audit: db.prepare("INSERT INTO audit_entries (id, form_id, entry) VALUES (?, ?, ?)"),
  page: db.prepare(
    `SELECT id, created_ms, body FROM submissions
     WHERE form_id = ? AND created_ms BETWEEN ? AND ? AND (created_ms, id) > (?, ?)
     ORDER BY created_ms, id LIMIT ?`,
  ),
};
/** Audit entries are kept 400 days, Formwork's default (`AUDIT_RETENTION_DAYS`). */
const auditRetentionMs = 400 * 24 * 60 * 60 * 1000;

/** Appends the audit entry of `caller` listing `ids` of `formId`, shaped as Formwork's. */
function auditListing(request, caller, formId, ids) {
  const now = Date.now();
  const entry = {
    id: v7({ msecs: now }),
    at: new Date(now).toISOString(),
    actor: caller.id,
    action: "submissions_listed",
    form_id: formId,
    target_ids: ids,
    client_address: request.ip,
    request_id: request.id,
    expires_at: new Date(now + auditRetentionMs).toISOString(),
    count: ids.length,
  };
  statements.audit.run(entry.id, formId, JSON.stringify(entry));
}

const allRoles = [
  "has_account_management",
  "has_reporting_full",
  "has_submit_access",
  "has_edit_submissions",
  "has_design",
];

const ajv = new Ajv({ allErrors: false });
/** Compiled validators by form id, with the definition they were compiled from. */
const validators = new Map();

/** The JSON schema of a post to a form: each value names one of its fields. */
function schemaOf(definition) {
  const names = definition.pages.flatMap((page) => page.fields.map((f) => f.unique_system_name));
  return {
    type: "object",
    required: ["form_fields"],
    properties: {
      form_fields: {
        type: "array",
        maxItems: names.length,
        items: {
          type: "object",
          required: ["unique_system_name", "submitted_value"],
          additionalProperties: false,
          properties: {
            unique_system_name: { enum: names },
            submitted_value: { type: "string", maxLength: 4000 },
          },
        },
      },
    },
  };
}

function validatorOf(form) {
  const kept = validators.get(form.id);
  if (kept?.definition === form.definition) return kept.validate;
  const validate = ajv.compile(schemaOf(JSON.parse(form.definition)));
  validators.set(form.id, { definition: form.definition, validate });
  return validate;
}

const post = db.transaction((formId, record) => {
  statements.raise.run(formId);
  statements.insert.run(
    record.id,
    formId,
    Date.parse(record.created_date_utc),
    JSON.stringify(record),
  );
});

const app = Fastify();

app.post("/api/form/:formId/submission", (request, reply) => {
  const form = statements.form.get(request.params.formId);
  if (!form) return reply.code(404).send({ error: { code: "not_found" } });
  const validate = validatorOf(form);
  if (!validate(request.body)) {
    return reply.code(400).send({ error: { code: "invalid_body", details: validate.errors } });
  }
  const now = Date.now();
  const fields = request.body.form_fields;
  const record = {
    id: v7({ msecs: now }),
    form_id: form.id,
    stale_form_name: form.name,
    created_by_verified_email_address: "",
    created_by_device: { client_ip_address: request.ip, client_ip_country_code: "" },
    form_fields: fields,
    search_words: searchWordsOf(fields),
    is_draft_submission: false,
    created_date_utc: new Date(now).toISOString(),
    modified_date_utc: "0001-01-01T00:00:00",
  };
  post(form.id, record);
  return {
    id: record.id,
    message: "Submission posted successfully",
    cloud_database_post_expected_but_failed: false,
    email_address_post_expected_but_failed: false,
    actionSuccessful: true,
  };
});

/** The caller of `TokenId` and `TokenSecret`, as Formwork finds it; `null` when wrong. */
function callerOf(headers) {
  const tokenId = String(headers.tokenid ?? "").toLowerCase();
  const key = tokenId && statements.apiKey.get(tokenId);
  if (!key) return null;
  const given = Buffer.from(hashSecret(String(headers.tokensecret ?? "")), "base64url");
  const stored = Buffer.from(key.secret_hash, "base64url");
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) return null;
  return statements.account.get(key.account_id) ?? null;
}

const listQuery = {
  type: "object",
  properties: {
    batchSize: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
    dateFrom: { type: "integer" },
    dateTo: { type: "integer" },
    continuationToken: { type: "string" },
  },
};

app.get(
  "/api/restricted/form/:formId/submissions",
  { schema: { querystring: listQuery } },
  (request, reply) => {
    const caller = callerOf(request.headers);
    if (!caller) return reply.code(401).send({ error: { code: "unauthorized" } });
    const form = statements.form.get(request.params.formId);
    const roles =
      form?.owner_id === caller.id
        ? allRoles
        : JSON.parse(statements.roles.get(request.params.formId, caller.id)?.roles ?? "[]");
    if (!form || roles.length === 0) return reply.code(404).send({ error: { code: "not_found" } });
    if (!roles.includes("has_reporting_full")) {
      return reply.code(403).send({ error: { code: "forbidden" } });
    }
    const { batchSize, dateFrom, dateTo, continuationToken } = request.query;
    const [afterMs, afterId] = continuationToken
      ? JSON.parse(Buffer.from(continuationToken, "base64url").toString())
      : [Number.MIN_SAFE_INTEGER, ""];
    const rows = statements.page.all(
      form.id,
      dateFrom ?? Number.MIN_SAFE_INTEGER,
      dateTo ?? Number.MAX_SAFE_INTEGER,
      afterMs,
      afterId,
      batchSize + 1,
    );
    const page = rows.slice(0, batchSize);
    const last = page.at(-1);
    auditListing(
      request,
      caller,
      form.id,
      page.map((row) => row.id),
    );
    return {
      results: page.map((row) => JSON.parse(row.body)),
      attachments: [],
      granted_form_roles: roles,
      container_sas_uri: "",
      continuation_token:
        rows.length > batchSize
          ? Buffer.from(JSON.stringify([last.created_ms, last.id])).toString("base64url")
          : null,
    };
  },
);

const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
console.log(`anchor listening on ${address}`);
process.once("SIGTERM", async () => {
  await app.close();
  db.close();
  process.exit(0);
});
