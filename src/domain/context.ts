import type { BlobStore } from "../ports/blob-store.ts";
import type { Destinations } from "../ports/destinations.ts";
import type { Mailer } from "../ports/mailer.ts";
import type { Payments } from "../ports/payments.ts";
import type { Store } from "../ports/store.ts";
import type { RetryPolicy } from "../ports/webhook-retries.ts";
import type { WebhookSender } from "../ports/webhook-sender.ts";
import type { CustomerQuotas } from "./records/customer-quotas.ts";

/**
 * What every domain function works with: the ports and the service's settings. It names no
 * concept: what a concept keeps per service instance (the form snapshots, the settled
 * uploads) it keeps itself, keyed by the context (form-snapshots.ts, settled-uploads.ts).
 */
export interface Context {
  store: Store;
  blobs: BlobStore | undefined;
  webhookSender: WebhookSender | undefined;
  /** Sends confirmation e-mails; `undefined` when none is configured (each e-mail fails). */
  mailer: Mailer | undefined;
  /** Takes the payments of paying forms (docs/design.md §26); `undefined` when none is configured. */
  payments: Payments | undefined;
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
}

/** The partner options as the service uses them. */
export interface PartnerSettings {
  /** The HS256 key of customer login tokens. */
  tokenKey: Uint8Array;
  /** Lifetime of a customer login token, in seconds. */
  tokenLifetimeSeconds: number;
  /** Quotas of a customer added without them. */
  quotaDefaults: CustomerQuotas;
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
  /**
   * How long an uploaded attachment may wait for a submission before the sweep removes it
   * and its bytes leave the form's unclaimed uploads; a file named by a submission later
   * than that is refused (400). Short, so that uploads never submitted hold the form's cap
   * briefly.
   * @default 3600000 (1 hour)
   */
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
  /**
   * Most bytes the unclaimed uploads of one form may take from one client address (an IPv6
   * address counts by its /64), so that one client filling the form's cap cannot block the
   * uploads of others; past it S3 answers that address 413 while others still upload. The
   * form's cap still bounds it. At least `uploadBytes`.
   * @default a quarter of `unclaimedUploadBytes`, or `uploadBytes` when larger (26214400, 25 MiB)
   */
  unclaimedUploadBytesPerAddress: number;
  /**
   * How many days an audit entry is kept (docs/design.md §25), the entries of deleted forms
   * too; the sweep removes older ones, at most a day late. A whole number, at least 1.
   * @default 400
   */
  auditRetentionDays: number;
}
