/**
 * Submissions: S1 reads one, S4/S5 list and export them, and the checks of submitted values
 * that S2 and S6 make. Posting, editing and deleting one (S2, S6, S7) span concepts and are
 * flows (../flows). Routes pass an access checked by the forms and settings concepts
 * (`accessFormToReport`, `accessFormToSubmit`).
 */
export { prefilledValues } from "./prefill-values.ts";
export { wordsOf } from "./search-words.ts";
export {
  exportSubmissions,
  exportSubmissionsRecorded,
  type SubmissionExportOptions,
} from "./submission-export.ts";
export { getSubmissionHistory, withHistory } from "./submission-history.ts";
export { listSubmissions, type SubmissionListOptions } from "./submission-listing.ts";
export { getAttachmentLink, getSubmission } from "./submission-reading.ts";
