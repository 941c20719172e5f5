import { create as contentDisposition } from "content-disposition";
import type { BlobInfo } from "./blob-store.ts";

/**
 * The `Content-Type` and `Content-Disposition` every blob store serves a download with, so
 * that the fs and Azure stores answer alike: a stored type fit for a header (else
 * `application/octet-stream`), and `attachment` with the file name cleaned of control
 * characters and path separators (the blob's own name when nothing is left), quoted and
 * given an RFC 8187 form where needed by `content-disposition`.
 */
export function downloadHeaders(info: BlobInfo, blobName: string) {
  return {
    contentType: safeContentType(info.contentType),
    contentDisposition: contentDisposition(safeFilename(info.filename, blobName)),
  };
}

function safeContentType(contentType: string): string {
  return /^[\w.+-]+\/[\w.+-]+(\s*;[\x20-\x7e]*)?$/.test(contentType)
    ? contentType
    : "application/octet-stream";
}

/**
 * A file name fit for `Content-Disposition`: control characters removed and path separators
 * made `_`, or `fallback` when nothing is left.
 */
export function safeFilename(filename: string, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const cleaned = filename.replace(/[\x00-\x1f\x7f-\x9f]/g, "").replace(/[/\\]/g, "_");
  return cleaned.trim() || fallback;
}
