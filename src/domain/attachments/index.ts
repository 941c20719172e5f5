/**
 * Files of submissions: S3 streams an upload into the blob store under a crash-exact hold
 * of the storage quota, submissions claim uploads (S2, S6), removals give the bytes back, and
 * the sweep clears holds and claims a crash left behind. Routes call `storeAttachment`; the
 * service's timer calls `sweepAttachments`.
 */
export { type AttachmentBlob, attachmentBlobOf } from "./attachment-blobs.ts";
export { sweepAttachments } from "./attachment-sweep.ts";
export { storeAttachment, storeAttachmentOnce } from "./attachments.ts";
