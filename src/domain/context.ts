import type { BlobStore } from "../ports/blob-store.ts";
import type { Destinations } from "../ports/destinations.ts";
import type { Mailer } from "../ports/mailer.ts";
import type { Store } from "../ports/store.ts";
import type { RetryPolicy } from "../ports/webhook-retries.ts";
import type { WebhookSender } from "../ports/webhook-sender.ts";
import type { PartnerSettings } from "./accounts/partner-settings.ts";
import type { SettledUploads } from "./attachments/settled-uploads.ts";
import type { FormSnapshots } from "./forms/form-snapshots.ts";

/** What every domain function works with: the ports and the service's settings. */
export interface Context {
  store: Store;
  blobs: BlobStore | undefined;
  webhookSender: WebhookSender | undefined;
  /** Sends confirmation e-mails; `undefined` when none is configured (each e-mail fails). */
  mailer: Mailer | undefined;
  /** How a form's own actions after a submission (e-mail, destination post) are attempted. */
  actions: ActionSettings;
  /** The partner layer's settings: the customer login token key and lifetime, default quotas. */
  partners: PartnerSettings;
  /** The current time; tests may fix it. */
  now(): Date;
  /** Maps a client address to its two-letter country code, or "" where unknown. */
  countryOf(address: string): string | Promise<string>;
  limits: Limits;
  /** Which webhook and destination addresses may be called, and the destination posts. */
  destinations: Destinations;
  /** Tells the webhook worker that deliveries were just queued. */
  nudgeWebhooks(): void;
  /**
   * Keeps a task running past the request that started it (an e-mail S2 stopped waiting
   * for, settled once the mailer answers); `close` waits for it before closing the store.
   * Its failure goes to the service's `onError`.
   */
  keepRunning(task: Promise<unknown>): void;
  /** The forms this instance holds for S2, checked against their version on every use. */
  formSnapshots: FormSnapshots;
  /** The uploads this instance settled, which its S2 claims without reading them again. */
  settledUploads: SettledUploads;
}

/** How the confirmation e-mail and the destination post are attempted (docs/design.md §11). */
export interface ActionSettings {
  /**
   * Milliseconds S2 waits for each first attempt. A destination post is aborted then; an
   * e-mail is settled later by the mailer's answer (action-attempts.ts).
   */
  attemptMs: number;
  /** The retries of an e-mail from the outbox (destination posts follow the webhook sender). */
  mailRetry: RetryPolicy;
}

/** Bounds on what one request may carry. */
export interface Limits {
  /** Largest JSON body accepted, in bytes. */
  jsonBodyBytes: number;
  /** Most datalist entries one D5 call may insert. */
  entriesPerInsert: number;
  /** Largest attachment file, whatever the form field allows. */
  uploadBytes: number;
  /** How long signed download links stay valid, in seconds. */
  signedLinkSeconds: number;
  /** How long an uploaded attachment may wait for a submission before it is removed. */
  attachmentGraceMs: number;
  /**
   * Most bytes the unclaimed uploads of one form (files uploaded that no submission holds
   * yet) may take; past it S3 answers 413. Bounds the disk that uploads never submitted
   * can fill during the grace period, for owners without a storage quota too.
   * @default 104857600 (100 MiB)
   */
  unclaimedUploadBytes: number;
  /**
   * For owners with a storage quota (partner customers): the share of that quota the
   * unclaimed uploads of one form may take at most, so that the rest stays for files that
   * submissions hold. A number from 0 to 1. With a 1 MB quota, anonymous uploads left
   * unsubmitted hold at most 750 kB, and a real 200 kB file still fits beside 450 kB of them.
   * @default 0.75
   */
  unclaimedUploadQuotaShare: number;
}

/** Names of the Store collections and what partitions each. */
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
  /** The service's own bookkeeping (the sweep's cursor); partition: its purpose. */
  serviceState: "service_state",
} as const;
