/**
 * The production `BlobStore` over Azure Blob Storage (`@azure/storage-blob`).
 *
 * Layout: one container per form (the form id, which meets Azure's naming rules), one block
 * blob per attachment (the attachment id), created on the first `put` into it. `put`
 * streams the body in blocks and commits them only at its end, so a failed body leaves
 * neither a partial blob nor a changed one. The `BlobInfo` is kept as the blob's
 * `Content-Type` and `Content-Disposition: attachment` (what Azure answers downloads with)
 * and, exactly, in its metadata.
 *
 * Downloads are served by Azure itself: `blobUrl` is `<account blob endpoint>/<container>/
 * <name>` and `signedQuery` a read-only service SAS (`sv`, `se`, `sr=b` for a blob or `sr=c`
 * for a container, `sp=r`, `sig`) signed with the account key. The store has no `fetch`.
 * Failures to reach Azure throw `StoreUnavailableError` (the service answers 503); missing
 * blobs and containers are `null` or `false`, never errors.
 * @module
 */
import {
  BlobServiceClient,
  type StorageRetryOptions,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import type { BlobStore } from "formwork/ports";
import { AzureBlobStore } from "./store.ts";

/** Options of {@link createAzureBlobStore}: a connection string, or a client and its key. */
export interface AzureBlobStoreOptions {
  /**
   * A storage account connection string with an account key
   * (`DefaultEndpointsProtocol=…;AccountName=…;AccountKey=…;…`), Azurite's included.
   */
  connectionString?: string;
  /** An existing client, instead of `connectionString`. */
  serviceClient?: BlobServiceClient;
  /**
   * The account key that signs download links. @default the client's own credential, when
   * it is a `StorageSharedKeyCredential`
   */
  credential?: StorageSharedKeyCredential;
  /**
   * With `connectionString`: the SDK's retries of a failed request.
   * @default { maxTries: 3, retryDelayInMs: 500, maxRetryDelayInMs: 5000, tryTimeoutInMs: 60000 }
   */
  retryOptions?: StorageRetryOptions;
  /** Bytes per uploaded block, and per buffer an upload holds. @default 4194304 (4 MiB) */
  blockBytes?: number;
  /** Blocks of one upload sent at once. @default 2 */
  uploadConcurrency?: number;
}

/** Retries that give up within seconds rather than the SDK's minutes when Azure is away. */
const defaultRetryOptions: StorageRetryOptions = {
  maxTries: 3,
  retryDelayInMs: 500,
  maxRetryDelayInMs: 5000,
  tryTimeoutInMs: 60_000,
};

/**
 * Creates an Azure Blob store. Does no I/O until the first call.
 * @throws {TypeError} unless exactly one of `connectionString` and `serviceClient` is given,
 *   or when no account key is at hand to sign links
 * @throws {RangeError} when `blockBytes` or `uploadConcurrency` is not a positive integer
 */
export function createAzureBlobStore(options: AzureBlobStoreOptions): BlobStore {
  if (Boolean(options.connectionString) === Boolean(options.serviceClient)) {
    throw new TypeError("azure blob store: give exactly one of connectionString or serviceClient");
  }
  const service =
    options.serviceClient ??
    BlobServiceClient.fromConnectionString(options.connectionString as string, {
      retryOptions: options.retryOptions ?? defaultRetryOptions,
    });
  const credential = options.credential ?? service.credential;
  if (!(credential instanceof StorageSharedKeyCredential)) {
    throw new TypeError("azure blob store: signing links needs the account key (credential)");
  }
  return new AzureBlobStore(service, credential, {
    blockBytes: positive("blockBytes", options.blockBytes ?? 4 * 1024 * 1024),
    concurrency: positive("uploadConcurrency", options.uploadConcurrency ?? 2),
  });
}

function positive(option: string, value: number): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw new RangeError(`azure blob store: ${option} must be a positive integer, not ${value}`);
}
