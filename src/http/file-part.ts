import type { Readable } from "node:stream";

/**
 * Bytes the web stream of a file part queues ahead of its reader before it pauses the part,
 * and with it the parser and the request: enough to keep one chunk ahead of a reader that
 * writes to disk, little enough to keep an upload's memory small.
 */
const queuedBytes = 256 * 1024;

/**
 * The bytes of a file part (a Node stream from busboy) as a web stream, failing with
 * `refusal()` once more than `limit` bytes have come (none of the excess is passed on) and
 * pausing the part whenever `queuedBytes` wait unread.
 *
 * One stream, not `Readable.toWeb` and a byte-limit `TransformStream` after it: `toWeb`
 * copies every chunk into a new buffer, and each stream between the parser and the blob
 * store costs several promise hops per chunk. Together they halved the upload rate of the
 * standalone server (bench/upload-path.bench.ts). Chunks go on uncopied: they are views of the parser's input,
 * which nothing writes to again; a reader must not transfer (detach) them.
 */
export function filePartBody(
  part: Readable,
  limit: number,
  refusal: () => Error,
): ReadableStream<Uint8Array> {
  let seen = 0;
  let ended = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const end = (finish: () => void) => {
          if (ended) return;
          ended = true;
          part.pause();
          finish();
        };
        part.on("data", (chunk: Uint8Array) => {
          if (ended) return;
          seen += chunk.byteLength;
          if (seen > limit) return end(() => controller.error(refusal()));
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) part.pause();
        });
        part.once("end", () => end(() => controller.close()));
        part.once("error", (error) => end(() => controller.error(error)));
        // Destroyed without an error: the bytes stop short all the same.
        part.once("close", () =>
          end(() => controller.error(new Error("the file part closed early"))),
        );
      },
      pull() {
        if (!ended) part.resume();
      },
      cancel(reason) {
        ended = true;
        part.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: queuedBytes, size: (chunk) => chunk.byteLength },
  );
}
