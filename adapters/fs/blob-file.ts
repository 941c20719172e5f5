/**
 * One blob is one file: a first line of JSON holding its info, then its bytes. Keeping both
 * in one file lets one rename publish or replace them together and one unlink remove them,
 * so a reader never pairs the info of one version with the bytes of another.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type { BlobInfo } from "formwork/ports";
import { isNotFound } from "formwork/ports/kit";
import { fsBlobError } from "./errors.ts";

const maxHeaderBytes = 64 * 1024;
const chunkBytes = 64 * 1024;
/**
 * Bytes a blob file's writer may buffer while a write is in flight. Chunks that arrive
 * meanwhile go to disk together in one `writev`: with Node's 16 KiB default every 64 KiB
 * chunk of an upload was a write of its own, and a 100 MiB upload took about 40 % more CPU
 * (`bench/upload-path.bench.ts`). An upload holds at most this much more in memory.
 */
const writeBufferBytes = 1024 * 1024;

/** An open blob file: its info, the size of its bytes and a stream of them. */
export interface OpenBlob {
  info: BlobInfo;
  size: number;
  /** Reads the bytes on demand; closes the file once read to the end or cancelled. */
  body: ReadableStream<Uint8Array>;
}

/**
 * Writes a new blob file at `path` (which must not exist): the info line, then `body`.
 * @returns the number of bytes of `body`
 * @throws the error of `body` when it fails, or an adapter error when the file does
 */
export async function writeBlobFile(
  path: string,
  body: ReadableStream<Uint8Array>,
  info: BlobInfo,
): Promise<number> {
  const header = encodeHeader(info);
  // Reading `body` here, rather than through Readable.fromWeb, tells its failures apart
  // from the file's: only a rejected read is the body's error.
  const reader = body.getReader();
  let failed: { error: unknown } | undefined;
  let bytes = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield header;
    for (;;) {
      const next = await reader.read().catch((error: unknown) => {
        failed = { error };
        throw error;
      });
      if (next.done) return;
      if (!(next.value instanceof Uint8Array)) {
        failed = { error: new TypeError("a blob body must yield Uint8Array chunks") };
        throw failed.error;
      }
      bytes += next.value.byteLength;
      yield next.value;
    }
  }
  let file: WriteStream | undefined;
  try {
    file = createWriteStream(path, {
      flags: "wx",
      mode: 0o600,
      highWaterMark: writeBufferBytes,
    });
    await pipeline(chunks(), file);
    return bytes;
  } catch (error) {
    // A body that fails at once may fail the pipeline while the file is still being opened;
    // the open then creates it later. Wait until it is closed, so that the caller's clean-up
    // finds it.
    if (file && !file.closed)
      await new Promise<void>((resolve) => file?.once("close", () => resolve()));
    // Stops the sender too; a no-op when the body itself failed.
    await reader.cancel(error).catch(() => {});
    if (failed) throw failed.error;
    throw fsBlobError(`cannot write ${path}`, error);
  } finally {
    reader.releaseLock();
  }
}

/** Opens the blob file at `path`. @returns `null` when there is none */
export async function openBlobFile(path: string): Promise<OpenBlob | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw fsBlobError(`cannot open ${path}`, error);
  }
  try {
    const { size } = await handle.stat();
    const head = new Uint8Array(Math.min(size, maxHeaderBytes));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const end = head.subarray(0, bytesRead).indexOf(0x0a);
    if (end < 0) throw new Error("no info line");
    const info = decodeInfo(new TextDecoder().decode(head.subarray(0, end)));
    const start = end + 1;
    return { info, size: size - start, body: fileBody(handle, start, size) };
  } catch (error) {
    await handle.close();
    throw fsBlobError(`cannot read ${path}`, error);
  }
}

function encodeHeader(info: BlobInfo): Uint8Array {
  const line = JSON.stringify({ v: 1, contentType: info.contentType, filename: info.filename });
  const bytes = new TextEncoder().encode(`${line}\n`);
  if (bytes.length > maxHeaderBytes) {
    throw fsBlobError("the blob's content type and file name are too long");
  }
  return bytes;
}

function decodeInfo(line: string): BlobInfo {
  const parsed = JSON.parse(line) as { v?: unknown; contentType?: unknown; filename?: unknown };
  if (parsed.v !== 1 || typeof parsed.contentType !== "string") throw new Error("bad info line");
  if (typeof parsed.filename !== "string") throw new Error("bad info line");
  return { contentType: parsed.contentType, filename: parsed.filename };
}

/** A pull-driven stream of `handle` from `start` to `end`: one chunk read per pull. */
function fileBody(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (position >= end) {
          await handle.close();
          controller.close();
          return;
        }
        const chunk = new Uint8Array(Math.min(chunkBytes, end - position));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) throw new Error("the file ended early");
        position += bytesRead;
        controller.enqueue(chunk.subarray(0, bytesRead));
      } catch (error) {
        await handle.close().catch(() => {});
        controller.error(fsBlobError("cannot read a blob", error));
      }
    },
    cancel: () => handle.close(),
  });
}
