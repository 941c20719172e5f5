import { Readable } from "node:stream";
import {
  BlobSASPermissions,
  type BlobServiceClient,
  type ContainerClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  type StorageSharedKeyCredential,
} from "@azure/storage-blob";
import type { BlobInfo, BlobStore } from "formwork/ports";
import { headersOf, infoOf } from "./blob-headers.ts";
import { isMissing, translate } from "./errors.ts";
import { type UploadShape, uploadBody } from "./upload.ts";

/** The Azure Blob `BlobStore`; see `index.ts` for its layout and guarantees. */
export class AzureBlobStore implements BlobStore {
  /** Containers this process created or found, so each `put` need not ask again. */
  readonly #known = new Map<string, Promise<void>>();

  constructor(
    private readonly service: BlobServiceClient,
    private readonly credential: StorageSharedKeyCredential,
    private readonly shape: UploadShape,
  ) {}

  async put(
    container: string,
    name: string,
    body: ReadableStream<Uint8Array>,
    info: BlobInfo,
  ): Promise<number> {
    const client = this.#container(container);
    const blob = client.getBlockBlobClient(checkedName(name));
    try {
      await this.#ensure(client);
    } catch (error) {
      await body.cancel(error).catch(() => {});
      throw translate(`cannot create container ${container}`, error);
    }
    try {
      return await uploadBody(blob, body, headersOf(info, name), this.shape);
    } catch (error) {
      // Deleted meanwhile (by another process): forget it so the next put creates it again.
      if (isMissing(error)) this.#known.delete(container);
      if (isFromAzure(error)) throw translate(`cannot upload ${container}/${name}`, error);
      throw error;
    }
  }

  async get(
    container: string,
    name: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; info: BlobInfo } | null> {
    const blob = this.#container(container).getBlobClient(checkedName(name));
    try {
      const download = await blob.download();
      const stream = download.readableStreamBody as Readable | undefined;
      const body = stream
        ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>)
        : new Response(new Uint8Array(0)).body;
      return { body: body as ReadableStream<Uint8Array>, info: infoOf(download) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw translate(`cannot read ${container}/${name}`, error);
    }
  }

  async delete(container: string, name: string): Promise<boolean> {
    const blob = this.#container(container).getBlobClient(checkedName(name));
    try {
      await blob.delete({ deleteSnapshots: "include" });
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw translate(`cannot delete ${container}/${name}`, error);
    }
  }

  async deleteContainer(container: string): Promise<void> {
    const client = this.#container(container);
    this.#known.delete(container);
    try {
      await client.deleteIfExists();
    } catch (error) {
      // Another caller's delete of the same container is already under way.
      if ((error as { code?: unknown }).code === "ContainerBeingDeleted") return;
      throw translate(`cannot delete container ${container}`, error);
    }
  }

  async signedQuery(container: string, name: string | undefined, expiresAt: Date) {
    checkedContainer(container);
    const sas = generateBlobSASQueryParameters(
      name === undefined
        ? {
            containerName: container,
            permissions: ContainerSASPermissions.parse("r"),
            expiresOn: expiresAt,
          }
        : {
            containerName: container,
            blobName: checkedName(name),
            permissions: BlobSASPermissions.parse("r"),
            expiresOn: expiresAt,
          },
      this.credential,
    );
    return `?${sas.toString()}`;
  }

  blobUrl(container: string, name: string): string {
    return this.#container(container).getBlobClient(checkedName(name)).url;
  }

  #container(container: string): ContainerClient {
    return this.service.getContainerClient(checkedContainer(container));
  }

  /** Creates the container once per process (a no-op when it exists); retried after a failure. */
  #ensure(client: ContainerClient): Promise<void> {
    let ready = this.#known.get(client.containerName);
    if (!ready) {
      ready = client.createIfNotExists().then(() => {});
      ready.catch(() => this.#known.delete(client.containerName));
      this.#known.set(client.containerName, ready);
    }
    return ready;
  }
}

/**
 * Azure's rule for container names: 3 to 63 lowercase letters, digits and single hyphens,
 * starting and ending with a letter or digit (form ids qualify).
 */
function checkedContainer(container: string): string {
  if (!/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/.test(container)) {
    throw new TypeError(`azure blob store: invalid container name ${JSON.stringify(container)}`);
  }
  return container;
}

function checkedName(name: string): string {
  if (name.length === 0 || name.length > 1024) {
    throw new TypeError(`azure blob store: invalid blob name ${JSON.stringify(name)}`);
  }
  return name;
}

/** Whether a failure is an answer or a transport error of the SDK, not the body's own. */
function isFromAzure(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "RestError";
}
