/** What the BlobStore conformance cases share: the adapter's options and a store per case. */
import { randomUUID } from "node:crypto";
import type { BlobStore } from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";

/** What an adapter hands to `blobStoreConformanceCases`. */
export interface BlobStoreConformanceOptions {
  /** Name shown in the test report. */
  name: string;
  /** Makes a blob store; each case works in containers of its own (random GUIDs). */
  create(): Promise<BlobStore>;
  /**
   * Fetches a full signed URL (`blobUrl` + `signedQuery`) of `blobs` the way a browser
   * would: a real `fetch` for a remote store, `blobs.fetch` for one the service serves.
   */
  download(url: string, blobs: BlobStore): Promise<Response>;
  /** Called after each case with the store it made, once its containers are deleted. */
  cleanup?(blobs: BlobStore): Promise<void>;
}

/** A store made for one case, and fresh container names within it. */
export interface BlobFixture {
  blobs: BlobStore;
  /** A new container name, deleted again after the case. */
  container(): string;
  /** Fetches a signed URL of this store the way a browser would (the options' `download`). */
  download(url: string): Promise<Response>;
}

/** A case whose body gets a fresh store; its containers are deleted when it ends. */
export function blobCase(
  options: BlobStoreConformanceOptions,
  name: string,
  body: (fixture: BlobFixture) => Promise<void>,
): ConformanceCase {
  return {
    name,
    async run() {
      const blobs = await options.create();
      const containers: string[] = [];
      const container = () => {
        const made = randomUUID();
        containers.push(made);
        return made;
      };
      try {
        await body({ blobs, container, download: (url) => options.download(url, blobs) });
      } finally {
        await Promise.all(containers.map((made) => blobs.deleteContainer(made)));
        await options.cleanup?.(blobs);
      }
    },
  };
}
