/**
 * Submissions: S2 posts one (a single `Store.batch` with its counts, deliveries, actions and
 * file claims), S1 reads one, S4/S5 list and export them, S6 edits and S7 deletes one, each
 * keeping the counts equal to the records after a crash. Routes pass an access checked by
 * the forms concept (`accessFormToReport`, `accessFormToSubmit`).
 */
export { wordsOf } from "./search-words.ts";
export { exportSubmissions, type SubmissionExportOptions } from "./submission-export.ts";
export { listSubmissions, type SubmissionListOptions } from "./submission-listing.ts";
export { getAttachmentLink, getSubmission } from "./submission-reading.ts";
