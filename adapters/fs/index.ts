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
 * Blobs are personal data: folders are made `0700`, files `0600`, and the first write sets
 * `directory` itself to `0700`, so that no other local user can read them.
 *
 * A full disk (`ENOSPC`, `EDQUOT`) throws `StoreUnavailableError`, which the service answers
 * 503, and the partial file is removed.
 *
 * Single process only: the first write clears what a crash left in `.partial` and `.trash`,
 * which would also remove another process's writes in progress. Files are not fsynced.
 * @module
 */
import type { BlobStore } from "formwork/ports";
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
  /**
   * The longest a download link may live: a link whose expiry lies further ahead when it is
   * used is refused (403) even when its signature is genuine. Keep the service's
   * `limits.signedLinkSeconds` (15 minutes by default) below it.
   * @default 604800 (7 days)
   */
  maxLinkLifetimeSeconds?: number;
}

/**
 * Creates an fs blob store over `options.directory`. Touches no file until the first call.
 * @throws {TypeError} naming the option when `directory` is not a non-empty string,
 * `storageUrl` is not an absolute URL with a path (not just `/`) and without query or
 * fragment, `signingSecret` is neither a string nor a `Uint8Array`, `now` is not a function,
 * or `maxLinkLifetimeSeconds` is not a positive number
 * @throws {RangeError} when `signingSecret` is empty
 */
export function createFsBlobStore(options: FsBlobStoreOptions): BlobStore {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("fs blob store: options { directory, storageUrl, signingSecret } needed");
  }
  const { directory, now = () => new Date() } = options;
  if (typeof directory !== "string" || directory === "") {
    throw new TypeError("fs blob store: directory must be the path of a folder");
  }
  if (typeof now !== "function") throw new TypeError("fs blob store: now must be a function");
  const { maxLinkLifetimeSeconds = 7 * 24 * 60 * 60 } = options;
  if (!(Number.isFinite(maxLinkLifetimeSeconds) && maxLinkLifetimeSeconds > 0)) {
    throw new TypeError("fs blob store: maxLinkLifetimeSeconds must be a positive number");
  }
  const storageUrl = checkStorageUrl(options.storageUrl);
  const secret = checkSecret(options.signingSecret);
  return new FsBlobStore(directory, storageUrl, secret, now, maxLinkLifetimeSeconds * 1000);
}

/** `storageUrl` without its trailing slashes. */
function checkStorageUrl(storageUrl: unknown): string {
  if (typeof storageUrl !== "string" || !URL.canParse(storageUrl)) {
    throw new TypeError(
      `fs blob store: storageUrl must be an absolute URL such as http://localhost:3000/storage, not ${String(storageUrl)}`,
    );
  }
  const url = new URL(storageUrl);
  // A root path would put every request of the service under the storage URL.
  if (url.search || url.hash || url.pathname.replace(/\/+$/, "") === "") {
    throw new TypeError("fs blob store: storageUrl needs a path and no query or fragment");
  }
  return storageUrl.replace(/\/+$/, "");
}

/** The key's bytes. */
function checkSecret(signingSecret: unknown): Uint8Array {
  let secret: Uint8Array;
  if (typeof signingSecret === "string") secret = new TextEncoder().encode(signingSecret);
  else if (signingSecret instanceof Uint8Array) secret = Uint8Array.from(signingSecret);
  else {
    throw new TypeError(
      `fs blob store: signingSecret must be a string or a Uint8Array, not ${signingSecret === null ? "null" : typeof signingSecret}`,
    );
  }
  if (secret.length === 0) throw new RangeError("fs blob store: signingSecret is empty");
  return secret;
}
