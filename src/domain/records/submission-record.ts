import type { Timestamps } from "../../kernel/timestamps.ts";
import type { PaymentStatus } from "../../ports/payments.ts";
import { leadingId } from "../../ports/record-texts.ts";
import type { Device } from "./device.ts";

/** One submitted value, as the interface writes it. */
export interface SubmittedField {
  unique_system_name: string;
  /** For a file field: the attachment ids, joined by `|`. */
  submitted_value: string;
}

/** A stored form submission. Partition: its form id. */
export interface SubmissionRecord extends Timestamps {
  id: string;
  form_id: string;
  stale_form_name: string;
  created_by_verified_email_address: string;
  created_by_device: Device;
  form_fields: SubmittedField[];
  search_words: string[];
  is_draft_submission: boolean;
  /**
   * Bookkeeping, never shown: the inventory counts (inventory.ts) this submission holds, one
   * each, as taken when it was stored or last updated, so that S6 and S7 give back exactly
   * those whatever the inventory settings say by then. Absent on records stored before it was
   * kept.
   */
  inventory_taken?: string[];
  /**
   * Bookkeeping, never shown: the attachment records of the files it holds, as its claim
   * left them (attachment-claims.ts), so that S5 lists them without reading each one; an
   * attachment is not changed while a submission holds it. Absent on records stored before
   * it was kept: S5 reads their attachments.
   */
  attachments_held?: AttachmentRecord[];
  /**
   * Never shown but through the history route: the versions S6 replaced, oldest first,
   * bounded (submission-history.ts). Absent until the first edit that changes something.
   */
  history?: SubmissionVersion[];
  /** How many of the oldest versions the history's bounds dropped; absent: none. */
  history_dropped?: number;
  /**
   * Bookkeeping, never shown: the keys of the respondent index records it has
   * (respondent-index.ts), so that S6 and S7 write exactly those whatever the definition
   * says by then. Absent when none, and on records stored before the index.
   */
  respondent_keys?: string[];
  /**
   * Extension (docs/design.md §26), present on a submission that pays: where its payment
   * stands. `pending` until the provider reports it `paid`, `expired` or `failed`.
   */
  payment_status?: PaymentStatus;
  /** What it pays, in the currency's minor units (cents for EUR). */
  payment_amount?: number;
  /** ISO 4217, upper case. */
  payment_currency?: string;
  /** The `Payments` port's provider (`stripe`). */
  payment_provider?: string;
  /** The provider's id for its checkout; `""` until the checkout is opened. */
  payment_reference?: string;
  /** Other checkouts of it that were paid too (the owner refunds them); absent: none. */
  payment_also_paid?: string[];
  /** Bookkeeping, never shown: when its checkout stops taking payment. */
  payment_expires_at?: string;
  /** Bookkeeping, never shown: how many checkouts it has opened (absent: one). */
  payment_attempts?: number;
  /**
   * Bookkeeping, never shown: its payment expired or failed and the counts it took (its
   * slot, inventory and monthly quota) were given back, so S7 gives back none of them.
   */
  payment_released?: true;
}

/** One edit of a submission, as its history keeps it (submission-history.ts). */
export interface SubmissionVersion {
  /** The version the edit made: 2 for the first edit (1 is the submission as posted). */
  version: number;
  edited_date_utc: string;
  edited_by_user_id: string;
  /** The fields it changed; `from` and `to` absent when `values_omitted`. */
  changes: { unique_system_name: string; from?: string; to?: string }[];
  /** Present when the edit turned a draft into a submission. */
  draft_cleared?: true;
  /** Present when the edit's values alone passed the history's budget: names only. */
  values_omitted?: true;
}

/** A stored submission attachment. Partition: its form id. */
export interface AttachmentRecord extends Timestamps {
  id: string;
  form_id: string;
  unsafe_original_filename: string;
  file_size: number;
  created_by_verified_email_address: string;
  created_by_device: Device;
  /** The file field it was uploaded for. */
  unique_system_name: string;
  /** The declared media type of the upload. */
  content_type: string;
  /** The submission that holds it; `null` while it waits for one. */
  submission_id: string | null;
  /**
   * `true` while S3 still streams the file: the record is then the upload's reservation,
   * and `file_size` the bytes it holds of the storage quota and the unclaimed-upload cap
   * (upload-holds.ts). No reader shows or claims it; the sweep removes it when the upload
   * never finished.
   */
  uploading?: true;
  /**
   * The one-time token a claim of the upload takes when S2 finds it listed as waiting in the
   * form's counter (waiting-uploads.ts): set by S3's settle, gone once claimed.
   */
  claim_token?: string;
}

/**
 * A submission as S5, the export, webhook payloads and destination posts show it: the record
 * without our bookkeeping (`inventory_taken`, `attachments_held`, the history,
 * `respondent_keys`), so that only the interface's fields leave.
 */
export function publicSubmission(record: SubmissionRecord) {
  const {
    inventory_taken: _i,
    attachments_held: _a,
    history: _h,
    history_dropped: _d,
    respondent_keys: _k,
    payment_expires_at: _e,
    payment_released: _r,
    payment_attempts: _n,
    ...view
  } = record;
  return view;
}

/** A submission as S1 shows it: {@link publicSubmission} without `search_words`. */
export function submissionView(record: SubmissionRecord) {
  const { search_words: _, ...view } = publicSubmission(record);
  return view;
}

/** An attachment as the interface shows it, without our bookkeeping fields. */
export function attachmentView(record: AttachmentRecord) {
  const {
    unique_system_name: _n,
    content_type: _t,
    submission_id: _s,
    uploading: _u,
    claim_token: _c,
    ...view
  } = record;
  return view;
}

/** The attachment ids a file field's value holds (`id|id|…`). */
export function attachmentIdsOf(value: string): string[] {
  return value === "" ? [] : value.split("|");
}

/** What S2 and S6 take (docs/design.md §4). */
export interface SubmissionInput {
  form_fields: SubmittedField[];
  is_draft_submission?: boolean;
}

/** The fields {@link publicSubmission} leaves out. */
const bookkeeping = [
  "inventory_taken",
  "attachments_held",
  "history",
  "history_dropped",
  "respondent_keys",
  "payment_expires_at",
  "payment_released",
  "payment_attempts",
] as const satisfies readonly (keyof SubmissionRecord)[];

/** What {@link publicSubmission} leaves out, by its type: `bookkeeping` must name just these. */
type LeftOut = Exclude<keyof SubmissionRecord, keyof ReturnType<typeof publicSubmission>>;
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The id of a record read from S5's text of it ({@link publicSubmissionText}), as a string
 * of its own: V8 keeps a slice's whole string alive, and the ids outlive the texts (S5's
 * audit entry keeps them until compaction). `undefined` when the text does not open with it.
 */
export function idOfSubmissionText(text: string): string | undefined {
  const id = leadingId(text);
  return id === undefined ? undefined : (JSON.parse(`"${id}"`) as string);
}

/** How a record S2 wrote ends when it holds no inventory and no file (`submissionOf`). */
const heldNothing = ',"inventory_taken":[],"attachments_held":[]}';

/** A key of a field {@link publicSubmission} leaves out, as `JSON.stringify` writes keys. */
const bookkeepingKey = new RegExp(`"(?:${bookkeeping.join("|")})":`);

/**
 * The `JSON.stringify` text of {@link publicSubmission}`(record)`, told from the record's
 * own text `json` without parsing it, when it ends as S2 writes a record holding no
 * inventory and no file (`,"inventory_taken":[],"attachments_held":[]}`) and holds no other
 * field left out before that: then it is the text cut before that ending. `undefined`
 * otherwise (an older layout, an edit's history, a file held): parse the record.
 * Exact: a key is written `"<key>":`, which inside a string would be `\"<key>\":`, and no
 * object nested in a submission has keys of those names.
 */
export function publicSubmissionText(json: string): string | undefined {
  if (!json.endsWith(heldNothing)) return undefined;
  const kept = json.slice(0, json.length - heldNothing.length);
  return bookkeepingKey.test(kept) ? undefined : `${kept}}`;
}

/**
 * {@link publicSubmission} of a record the caller owns and only reads (a page S5 answers):
 * the record itself when it holds none of the fields left out, which copies nothing.
 */
export function ownedPublicSubmission(
  record: SubmissionRecord,
): ReturnType<typeof publicSubmission> {
  // `never`, so this fails to compile, when the list and the destructuring disagree.
  const fields: Agree<LeftOut, (typeof bookkeeping)[number]> extends true
    ? typeof bookkeeping
    : never = bookkeeping;
  for (const field of fields) if (field in record) return publicSubmission(record);
  return record;
}
