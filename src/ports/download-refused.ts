/**
 * Why a blob store that serves its own downloads (`BlobStore.fetch`) refuses one:
 * `not_found` (no such file, or a path that names none), `forbidden` (a link that is not
 * valid, has expired, or lives too long) or `method_not_allowed` (anything but GET and HEAD).
 */
export type DownloadRefusal = "not_found" | "forbidden" | "method_not_allowed";

/**
 * Thrown by `BlobStore.fetch` for a request under its storage URL that it refuses.
 * The service answers it with the failure envelope: 404 `not_found`, 403 `forbidden` or
 * 405 `method_not_allowed` with `Allow` listing {@link DownloadRefusedError.allow}. The
 * message is the sentence the client reads, e.g. "This link has expired".
 */
export class DownloadRefusedError extends Error {
  /** Why the download is refused. */
  readonly reason: DownloadRefusal;
  /** For `method_not_allowed`: the methods the storage path serves. */
  readonly allow: readonly string[];

  constructor(reason: DownloadRefusal, message: string, allow: readonly string[] = []) {
    super(message);
    this.name = "DownloadRefusedError";
    this.reason = reason;
    this.allow = allow;
  }
}
