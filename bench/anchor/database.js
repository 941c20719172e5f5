/**
 * The anchor's database (docs/design.md §22): what a developer would build instead of
 * Formwork, on better-sqlite3 in WAL mode. Accounts with hashed API keys, forms with their
 * owner and definition, collaborators' roles, a counter per form, submissions kept as
 * their JSON with an index over form, time and id for S5's pages, and the audit trail of
 * who read which submissions (an entry per page, as Formwork keeps it, docs/design.md §25).
 */
import { createHash } from "node:crypto";
import Database from "better-sqlite3";

const schema = `
  CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS api_keys (
    token_id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, account_id TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS forms (
    id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS form_users (
    form_id TEXT NOT NULL, account_id TEXT NOT NULL, roles TEXT NOT NULL,
    PRIMARY KEY (form_id, account_id));
  CREATE TABLE IF NOT EXISTS form_counters (
    form_id TEXT PRIMARY KEY, submissions INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS submissions (
    id TEXT PRIMARY KEY, form_id TEXT NOT NULL, created_ms INTEGER NOT NULL, body TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS submissions_by_time ON submissions (form_id, created_ms, id);
  CREATE TABLE IF NOT EXISTS audit_entries (
    id TEXT PRIMARY KEY, form_id TEXT NOT NULL, entry TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS audit_entries_by_form ON audit_entries (form_id, id);
`;

/**
 * Opens (creating if need be) the database at `path`, in WAL mode with `synchronous` set
 * to `NORMAL` (a commit survives a killed process) or `FULL` (also a power loss).
 * @param {string} path
 * @param {"NORMAL" | "FULL"} synchronous
 */
export function openDatabase(path, synchronous = "NORMAL") {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous === "FULL" ? "FULL" : "NORMAL"}`);
  db.exec(schema);
  return db;
}

/** The hash kept for an API key's secret, as Formwork keeps it (SHA-256, base64url). */
export function hashSecret(secret) {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

/** The lower-case words of a submission's values: its `search_words`. */
export function searchWordsOf(fields) {
  const words = new Set();
  for (const field of fields) {
    for (const word of String(field.submitted_value)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []) {
      words.add(word);
    }
  }
  return [...words];
}
