import type { StoreRecord } from "../../ports/store.ts";
import { collections } from "../records/collections.ts";

/** Where a file lives in the blob store: the form id as container, the attachment id as name. */
export interface AttachmentBlob {
  container: string;
  name: string;
}

/**
 * The blob holding the file of a stored record, or `null` for a record that has none: only
 * attachment records (collection `attachments`, partition the form id) do. A copy of the
 * store (docs/design.md §24) copies this blob with its record.
 */
export function attachmentBlobOf(
  collection: string,
  partition: string,
  record: StoreRecord,
): AttachmentBlob | null {
  return collection === collections.attachments ? { container: partition, name: record.id } : null;
}
