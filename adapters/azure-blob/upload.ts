/**
 * A streamed upload to a block blob. `uploadStream` reads the body into a few fixed-size
 * buffers, stages each full buffer as an uncommitted block, and commits the block list only
 * once the body has ended: until then the blob (or the one it replaces) is unchanged, so a
 * body that fails leaves nothing behind. Azure drops uncommitted blocks by itself after a
 * week.
 */
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
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
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
  const readable = Readable.fromWeb(counted as NodeReadableStream<Uint8Array>);
  readable.once("error", (error) => {
    bodyError ??= { error };
  });
  try {
    await blob.uploadStream(readable, shape.blockBytes, shape.concurrency, headers);
    return bytes;
  } catch (error) {
    // Stop reading a body that Azure no longer takes; keep the body's own error first.
    readable.destroy();
    throw bodyError ? bodyError.error : error;
  }
}
