import { ServiceError } from "./errors.ts";

/**
 * One uploaded file, as it streams in: what the HTTP layer receives (src/http/multipart.ts)
 * and the domain stores (S3), kept here so that neither imports the other.
 */
export interface IncomingFile {
  /** The part's name: for S3, the system name of a file field. */
  fieldName: string;
  /** The file name the client gave; untrusted. */
  filename: string;
  /** The part's declared media type; untrusted. */
  mediaType: string;
  /**
   * The file's bytes; call once. Past `limit` bytes the stream fails with `refusal()` and
   * stops reading; cancelling it abandons the upload.
   */
  open(limit: number, refusal: () => ServiceError): ReadableStream<Uint8Array>;
}

/** The 413 of a file larger than `limit` bytes. */
export function fileTooLarge(limit: number): ServiceError {
  return new ServiceError("payload_too_large", `The file is larger than ${limit} bytes`);
}
