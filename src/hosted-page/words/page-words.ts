/**
 * The shape of the hosted page's own words in one language (docs/design.md §21): every
 * language of the catalogue (index.ts) is typed with it, so that a missing or misspelt key
 * fails the type check. `{name}` marks a value put in by {@link fill} (fill.ts); a
 * {@link Counted} text is chosen by the count it names. The owner's own texts (the form's
 * name, labels, options, the thanks message) are never translated.
 */
import type { ProblemCode } from "../../rules/field-problems.ts";

/** A text that names a count: `one` for a count the language says as singular, else `other`. */
export interface Counted {
  one: string;
  other: string;
}

/** A message page's heading and sentence. */
export interface MessageWords {
  title: string;
  message: string;
}

/** The problems whose text names a count of characters or files. */
type CountedProblem = "too_long" | "too_many_files";

/**
 * A field's problem (field-problems.ts) by code, with `{label}` (the field's name) and the
 * values its code carries: `{count}`, `{min}`, `{max}`, `{option}`.
 */
export type ProblemWords = Record<Exclude<ProblemCode, CountedProblem>, string> &
  Record<CountedProblem, Counted>;

/** The words the page's script says: the page sends them as JSON (`#formwork-words`). */
export interface ScriptWords {
  /** Spoken after a required group of checkboxes' legend, for screen readers. */
  required: string;
  /** A sold-out option (`{option}`). */
  soldOut: string;
  /** The summary above the form when fields are in error. */
  fixFields: string;
  /** A refused submission whose answer says no more. */
  notSent: string;
  /** A submission that did not reach the server. */
  offline: string;
  /** The thanks message when the owner set none. */
  thanks: string;
  /** The accessible name of a file's progress bar (`{file}`). */
  uploadOf: string;
  /** An upload whose challenge could not be solved (`{file}`). */
  uploadUnprepared: string;
  /** An upload refused with no message (`{file}`, `{status}`). */
  uploadFailed: string;
  /** An upload that did not reach the server (`{file}`). */
  uploadUnreached: string;
  /** More files chosen than the field takes. */
  tooManyChosen: Counted;
  /** A chosen file over the field's size (`{file}`). */
  fileTooLarge: string;
  /** A file field one of whose uploads failed, on submit. */
  fileNotUploaded: string;
  /** Back from a checkout, the payment's states (docs/design.md §26). */
  payment: PaymentWords;
  problems: ProblemWords;
}

/** What the page says when a checkout sends the respondent back. */
export interface PaymentWords {
  /** Paid: the submission's status says so. */
  paid: string;
  /** Back from paying, the provider's word not in yet. */
  confirming: string;
  /** Still not confirmed after the page stopped asking. */
  unconfirmed: string;
  /** Back unpaid, or the payment did not go through. */
  notCompleted: string;
  /** The button that opens a new checkout. */
  tryAgain: string;
  /** Expired or failed: it can no longer be paid. */
  closed: string;
  /** The status could not be read, or the new checkout not opened. */
  unreached: string;
}

/** All the words of the page in one language. */
export interface PageWords {
  submit: string;
  /** The step navigation's buttons and indicator (`{step}`, `{count}`) and its name. */
  back: string;
  next: string;
  stepOf: string;
  /** The indicator's name of a page with no title: "Step {step}". */
  stepName: string;
  steps: string;
  /** A select's empty first option. */
  choose: string;
  /** The page's heading when the form has no name. */
  formName: string;
  /** The accessible name of the error summary's list of links. */
  fieldsToCorrect: string;
  /** A file field's hint: how many files, how large each, which kinds. */
  anyFiles: string;
  upToFiles: Counted;
  /** `{size}`: a size built from `bytes`, `kilobytes` or `megabytes`. */
  eachAtMost: string;
  bytes: Counted;
  kilobytes: string;
  megabytes: string;
  /** The closed notice, by why S2 refuses posts (docs/design.md §21). */
  closed: { closed: string; sold_out: string };
  /** The message pages of a form that cannot be shown. */
  notFound: MessageWords;
  badAddress: MessageWords;
  disabled: MessageWords;
  signIn: MessageWords;
  /** The heading of any other refusal, over the service's own sentence. */
  cannotShow: string;
  script: ScriptWords;
}

/**
 * What the page sends its script as JSON (`#formwork-words`): its language's script words,
 * and `answers`, S2's own sentences the page says in that language (closed, full, and the
 * default thanks when the owner wrote none), keyed by S2's sentence.
 */
export interface SentWords extends ScriptWords {
  answers: Record<string, string>;
}
