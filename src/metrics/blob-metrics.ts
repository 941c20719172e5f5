import type { BlobStore } from "../ports/blob-store.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/**
 * `blobs` with the size of each blob it stores recorded in `formwork_upload_size_bytes`
 * (docs/design.md §10): the service writes blobs for uploads (S3) alone. A write that fails,
 * an upload refused midway included, records nothing.
 */
export function measuredBlobs(blobs: BlobStore, metrics: ServiceMetrics): BlobStore {
  const measured: BlobStore = {
    async put(container, name, body, info) {
      const bytes = await blobs.put(container, name, body, info);
      metrics.upload(bytes);
      return bytes;
    },
    get: (container, name) => blobs.get(container, name),
    delete: (container, name) => blobs.delete(container, name),
    deleteContainer: (container) => blobs.deleteContainer(container),
    signedQuery: (container, name, expiresAt) => blobs.signedQuery(container, name, expiresAt),
    blobUrl: (container, name) => blobs.blobUrl(container, name),
  };
  // Only a store that serves its own downloads has `fetch`: the service checks for it.
  const fetch = blobs.fetch?.bind(blobs);
  if (fetch) measured.fetch = fetch;
  return measured;
}
