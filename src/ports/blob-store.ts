/**
 * The BlobStore port: where attachment files live. A container holds blobs by name; the
 * service uses the form id as container and the attachment id as blob name.
 *
 * Calls may overlap. A blob is visible to `get` only once its `put` has resolved.
 */
export interface BlobStore {
  /**
   * Streams `body` into a new blob, replacing any blob of that name.
   * @returns the number of bytes written.
   * @throws the error of `body` when the stream fails; no partial blob stays behind then.
   * @throws {StoreUnavailableError} when the storage cannot take it at the moment (it cannot
   *   be reached, or its disk is full); no partial blob stays behind then either.
   */
  put(
    container: string,
    name: string,
    body: ReadableStream<Uint8Array>,
    info: BlobInfo,
  ): Promise<number>;

  /** Opens a blob for reading. @returns `null` when there is no such blob. */
  get(
    container: string,
    name: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; info: BlobInfo } | null>;

  /** Deletes a blob. @returns `false` when there was none. */
  delete(container: string, name: string): Promise<boolean>;

  /** Deletes a container and every blob in it. */
  deleteContainer(container: string): Promise<void>;

  /**
   * A read-only signed query string for one blob, or for a whole container when `name` is
   * omitted, valid until `expiresAt`: appended to {@link blobUrl}, it reads the blob; changed
   * in any part, expired, or applied to another blob or container, it is refused (4xx). The
   * interface shows Azure's SAS shape (`?sv=&se=&sr=&sp=&sig=`), which the built-in stores
   * give; the conformance suite checks only the behaviour, so another signing scheme (S3's
   * presigned query) passes it too.
   */
  signedQuery(container: string, name: string | undefined, expiresAt: Date): Promise<string>;

  /** The full URL of a blob, without a signature: `{storage_url}/<container>/<name>`. */
  blobUrl(container: string, name: string): string;

  /**
   * For blob stores the service serves itself (fs): answers a download request under
   * `{storage_url}` (GET/HEAD of `<storage path>/<container>/<name>?sv=&se=&sr=&sp=&sig=`),
   * or `null` when the request's path is not under the storage URL.
   * @throws {DownloadRefusedError} for a refusal (a link not valid, a file not there, a
   *   method other than GET and HEAD); the service answers it with the failure envelope
   * @throws {StoreUnavailableError} when the storage cannot be read at the moment
   */
  fetch?(request: Request): Promise<Response | null>;
}

/** What a blob is, kept beside its bytes. */
export interface BlobInfo {
  contentType: string;
  /** The file name offered to whoever downloads it. */
  filename: string;
}
