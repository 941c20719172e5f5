/**
 * A streamed upload to a block blob. `uploadStream` reads the body into a few fixed-size
 * buffers, stages each full buffer as an uncommitted block, and commits the block list only
 * once the body has ended: until then the blob (or the one it replaces) is unchanged, so a
 * body that fails leaves nothing behind. Azure drops uncommitted blocks by itself after a
 * week.
 */
import { Readable } from "node:stream";
import type { BlockBlobClient } from "@azure/storage-blob";
import type { BlobHeaders } from "./blob-headers.ts";

/** How a body is cut into blocks. */
export interface UploadShape {
  /** Bytes per block, and per buffer held in memory. */
  blockBytes: number;
  /** Blocks staged at once; memory per upload is about `blockBytes * concurrency`. */
  concurrency: number;
}

/**
 * Streams `body` into `blob` with `headers`.
 * @returns the number of bytes written.
 * @throws the error of `body` when it fails (the body's own error, not a wrapper), or the
 *   SDK's error when Azure refuses; the body is cancelled then.
 */
export async function uploadBody(
  blob: BlockBlobClient,
  body: ReadableStream<Uint8Array>,
  headers: BlobHeaders,
  shape: UploadShape,
): Promise<number> {
  let bytes = 0;
  let bodyError: { error: unknown } | undefined;
  // Read here, counted as they pass, rather than through a counting TransformStream and
  // Readable.fromWeb: two stream hops fewer per chunk, and only a rejected read is the body's.
  const reader = body.getReader();
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const next = await reader.read().catch((error: unknown) => {
        bodyError ??= { error };
        throw error;
      });
      if (next.done) return;
      bytes += next.value.byteLength;
      yield next.value;
    }
  }
  const readable = Readable.from(chunks(), { objectMode: false });
  try {
    await blob.uploadStream(readable, shape.blockBytes, shape.concurrency, headers);
    return bytes;
  } catch (error) {
    // Stop reading a body that Azure no longer takes; keep the body's own error first.
    readable.destroy();
    await reader.cancel(error).catch(() => {});
    throw bodyError ? bodyError.error : error;
  }
}
