/**
 * How a `BlobInfo` is kept on an Azure blob: as the blob's own `Content-Type` and
 * `Content-Disposition`, which Azure sends with every download through a SAS link, and as
 * metadata holding the exact values given, which `get` answers.
 */
import type { BlobHTTPHeaders, Metadata } from "@azure/storage-blob";
import type { BlobInfo } from "formwork/ports";
import { downloadHeaders } from "formwork/ports/kit";

/** What `put` sends beside the bytes. */
export interface BlobHeaders {
  blobHTTPHeaders: BlobHTTPHeaders;
  metadata: Metadata;
}

/**
 * The headers and metadata that keep `info` on blob `name`. Downloads get a content type
 * fit for a header (else `application/octet-stream`) and `attachment` with the file name
 * cleaned of control characters and path separators, as the fs store serves them.
 */
export function headersOf(info: BlobInfo, name: string): BlobHeaders {
  const { contentType, contentDisposition } = downloadHeaders(info, name);
  return {
    blobHTTPHeaders: { blobContentType: contentType, blobContentDisposition: contentDisposition },
    // Metadata travels as HTTP headers: ASCII only, hence the percent-encoding.
    metadata: {
      filename: encodeURIComponent(info.filename),
      content_type: encodeURIComponent(info.contentType),
    },
  };
}

/** The `BlobInfo` kept on a blob, from its properties as a download answers them. */
export function infoOf(properties: { contentType?: string; metadata?: Metadata }): BlobInfo {
  const metadata = properties.metadata ?? {};
  return {
    contentType: decoded(metadata.content_type) ?? properties.contentType ?? "",
    filename: decoded(metadata.filename) ?? "",
  };
}

function decoded(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    // Metadata written by someone else, not percent-encoded: take it as it is.
    return value;
  }
}
