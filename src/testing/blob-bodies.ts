/** Request bodies for the BlobStore conformance suite, and a reader for what comes back. */
import { createHash } from "node:crypto";

/** A body yielding `bytes` in chunks of `chunkBytes`. */
export function bodyOf(bytes: Uint8Array, chunkBytes = 7): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}

/** A body yielding `text` as UTF-8. */
export function textBody(text: string): ReadableStream<Uint8Array> {
  return bodyOf(new TextEncoder().encode(text));
}

/** A body that yields some bytes and then fails with `error`. */
export function failingBody(error: Error): ReadableStream<Uint8Array> {
  let pulls = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      if (pulls > 3) return controller.error(error);
      controller.enqueue(new Uint8Array(64 * 1024).fill(pulls));
    },
  });
}

/**
 * A body of `totalBytes` made chunk by chunk as it is read, never held whole, with the
 * SHA-256 of everything it yields (complete once the body has been read to the end).
 */
export function generatedBody(totalBytes: number): {
  body: ReadableStream<Uint8Array>;
  sha256(): string;
} {
  const hash = createHash("sha256");
  let made = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (made >= totalBytes) return controller.close();
      const chunk = new Uint8Array(Math.min(256 * 1024, totalBytes - made));
      for (let i = 0; i < chunk.length; i += 4096) chunk[i] = (made + i) % 251;
      hash.update(chunk);
      made += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { body, sha256: () => hash.copy().digest("hex") };
}

/** Reads a stream to its end: its byte count and SHA-256, without keeping the bytes. */
export async function measure(
  body: ReadableStream<Uint8Array>,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** Reads a stream to its end as UTF-8 text. */
export async function readText(body: ReadableStream<Uint8Array> | null): Promise<string> {
  return body ? new Response(body).text() : "";
}
