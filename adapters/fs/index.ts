/**
 * The embedded `BlobStore`: attachment files in a folder, served by the service itself under
 * its storage URL through signed links shaped like Azure SAS tokens (see `signed-query.ts`).
 *
 * Layout: `<directory>/<container>/<name>`, one file per blob holding a first line of JSON
 * (content type and file name) and then the blob's bytes, so that one rename publishes a
 * blob with its info. A `put` streams into `<directory>/.partial/` and renames the complete
 * file into place; `deleteContainer` moves the folder to `<directory>/.trash/` and then
 * removes it. Names are letters, digits, `_` and `-` only, so none can leave `directory`.
 *
 * Single process only: the first write clears what a crash left in `.partial` and `.trash`,
 * which would also remove another process's writes in progress. Files are not fsynced.
 * @module
 */
import type { BlobStore } from "../../src/ports/blob-store.ts";
import { FsBlobStore } from "./store.ts";

/** Options of {@link createFsBlobStore}. */
export interface FsBlobStoreOptions {
  /** The folder holding every blob; created on the first write. */
  directory: string;
  /**
   * The absolute URL under which the service serves blobs, e.g.
   * `http://localhost:3000/storage`; its path may not be the root. `blobUrl` answers
   * `<storageUrl>/<container>/<name>` and `fetch` every request whose path is under this
   * URL's path.
   */
  storageUrl: string;
  /** The HMAC-SHA256 key that signs download links; at least 32 random bytes is advisable. */
  signingSecret: string | Uint8Array;
  /** The clock that decides whether a link has expired. @default () => new Date() */
  now?: () => Date;
}

/**
 * Creates an fs blob store over `options.directory`. Touches no file until the first call.
 * @throws {TypeError} when `storageUrl` is not an absolute URL with a path (not just `/`) and
 * without query or fragment
 * @throws {RangeError} when `signingSecret` is empty
 */
export function createFsBlobStore(options: FsBlobStoreOptions): BlobStore {
  const url = new URL(options.storageUrl);
  // A root path would put every request of the service under the storage URL.
  if (url.search || url.hash || url.pathname.replace(/\/+$/, "") === "") {
    throw new TypeError("fs blob store: storageUrl needs a path and no query or fragment");
  }
  const secret =
    typeof options.signingSecret === "string"
      ? new TextEncoder().encode(options.signingSecret)
      : Uint8Array.from(options.signingSecret);
  if (secret.length === 0) throw new RangeError("fs blob store: signingSecret is empty");
  const storageUrl = options.storageUrl.replace(/\/+$/, "");
  return new FsBlobStore(options.directory, storageUrl, secret, options.now ?? (() => new Date()));
}
