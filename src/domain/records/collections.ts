/**
 * Names of the Store collections and what partitions each: the one list every concept names
 * its records by.
 */
export const collections = {
  /** Accounts; partition and id: the user id. */
  accounts: "accounts",
  /** E-mail → user id, to keep e-mails unique; partition and id: the normalised e-mail. */
  accountEmails: "account_emails",
  /**
   * Local accounts, listed for the admin API (partner customers are listed by P3 instead);
   * one partition, `local`; id: the user id. See `account-lists.ts`.
   */
  localAccounts: "local_accounts",
  /** Account tokens; partition and id: the token id. */
  tokens: "tokens",
  /** Which tokens each account holds, for the admin API; partition: the user id; id: token id. */
  accountTokens: "account_tokens",
  /** Partners; partition and id: the partner id. */
  partners: "partners",
  /** Partner customers (P3–P5); partition: the partner id; id: the customer's user id. */
  customers: "customers",
  /**
   * What each partner customer uses of its quotas; partition: the customer's user id; id:
   * the quota, with the month (`YYYY-MM`) or the datalist it counts for. See `quotas.ts`.
   */
  customerCounters: "customer_counters",
  /** Forms; partition and id: the form id. */
  forms: "forms",
  /** Form user security records; partition: the form id. */
  formUsers: "form_users",
  /** Which forms a principal can reach; partition: `user:<id>` or `email:<e-mail>`; id: form id. */
  memberships: "memberships",
  /** Datalists; partition: the owner's user id. */
  datalists: "datalists",
  /** Datalist entry items; partition: the datalist id. */
  datalistEntries: "datalist_entries",
  /** Form submissions; partition: the form id. */
  submissions: "submissions",
  /** Submission attachments; partition: the form id. */
  attachments: "attachments",
  /**
   * Uploads to check once their grace period is over; partition: the hour of the upload
   * (`YYYY-MM-DDTHH`); id: the attachment id. See `attachment-sweep.ts`.
   */
  uploads: "attachment_uploads",
  /** Per-form counters (submissions held); partition and id: the form id. */
  formCounters: "form_counters",
  /** Submission webhooks; partition: the form id. */
  webhooks: "webhooks",
  /** Each message sent to a webhook, with its attempts; partition: the webhook id. */
  webhookDeliveries: "webhook_deliveries",
  /**
   * Deliveries waiting for an attempt; one partition, `due`, kept small because entries
   * leave it once delivered or given up. See `webhook-worker.ts`.
   */
  webhookOutbox: "webhook_outbox",
  /**
   * Solutions of bot-protection challenges already used, kept until their challenge expires;
   * partition: the hour it expires (`YYYY-MM-DDTHH`); id: the challenge's signature. See
   * `bot-protection.ts`.
   */
  usedSolutions: "used_challenge_solutions",
  /**
   * The first answer of each request sent with an `Idempotency-Key` (S2, S3, S6); partition:
   * the form id; id: a hash of the caller's scope and the key. See `idempotency-keys.ts`.
   */
  idempotencyKeys: "idempotency_keys",
  /**
   * Which forms took idempotency keys in an hour, for the sweep that removes expired keys;
   * partition: the hour (`YYYY-MM-DDTHH`); id: fresh. See `idempotency-sweep.ts`.
   */
  idempotencyNotes: "idempotency_notes",
  /**
   * The forms that keep submissions for a limited time, for the retention sweep; one
   * partition, `all`; id: the form id. See `form-retention.ts`.
   */
  retentionForms: "retention_forms",
  /**
   * The audit trail: who read or changed a form's submissions and who may see them;
   * partition: the form id (its entries outlive the form: F3 leaves them). See
   * `audit/audit-entries.ts`.
   */
  auditEntries: "audit_entries",
  /**
   * Which forms took audit entries in a month, for the sweep that removes entries past
   * their retention; partition: the month (`YYYY-MM`); id: the form id. See `audit-sweep.ts`.
   */
  auditMonths: "audit_months",
  /**
   * Which submissions of a form hold a respondent's e-mail address (docs/design.md §6):
   * partition: the form id; id: `<key>.<submission id>`, the key being the hex SHA-256 of the
   * normalised address. See `respondent-index.ts`.
   */
  respondentIndex: "respondent_index",
  /**
   * Submissions waiting for their payment, for the sweep that asks the provider after
   * checkouts past their expiry (docs/design.md §26); partition: the hour the checkout
   * expires (`YYYY-MM-DDTHH`); id: `<form id>.<submission id>`. See `payment-sweep.ts`.
   */
  paymentNotes: "payment_notes",
  /** The service's own bookkeeping (the sweep's cursor); partition: its purpose. */
  serviceState: "service_state",
} as const;
