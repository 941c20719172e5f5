/**
 * Sends one file of any size as a `multipart/form-data` request, generated while it is
 * sent: one 64 KiB block written again and again with the socket's backpressure respected,
 * so the sender never holds more than a block, whatever the file's size. The same body is
 * also offered as a Node stream, for benches that skip HTTP.
 */
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { Readable } from "node:stream";

const block = randomBytes(64 * 1024);

/** The answer to an upload. */
export interface UploadAnswer {
  status: number;
  body: string;
}

/** A multipart body holding one file part of `size` bytes named `field`. */
export interface MultipartBody {
  contentType: string;
  /** The whole body's length, for `Content-Length`. */
  length: number;
  head: Buffer;
  size: number;
  tail: Buffer;
}

/** The parts of a multipart body with one file of `size` bytes as the part `field`. */
export function multipartBody(field: string, size: number): MultipartBody {
  const boundary = `----formwork-bench-${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${field}"; filename="bench.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const contentType = `multipart/form-data; boundary=${boundary}`;
  return { contentType, length: head.length + size + tail.length, head, size, tail };
}

/**
 * The body as a Node stream of fresh 64 KiB buffers, as a socket delivers a request: each
 * read allocates its own, so a bench pays what a server pays for them.
 */
export function multipartStream(body: MultipartBody): Readable {
  let sent = -1;
  return new Readable({
    highWaterMark: block.length,
    read() {
      if (sent < 0) {
        sent = 0;
        this.push(Buffer.from(body.head));
      } else if (sent >= body.size) {
        this.push(Buffer.from(body.tail));
        this.push(null);
      } else {
        const chunk = Buffer.allocUnsafe(Math.min(block.length, body.size - sent));
        block.copy(chunk, 0, 0, chunk.length);
        sent += chunk.length;
        this.push(chunk);
      }
    },
  });
}

/** Uploads `size` bytes as the file part `field` to `url`. */
export function uploadFile(url: string, field: string, size: number): Promise<UploadAnswer> {
  const body = multipartBody(field, size);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "POST",
      headers: { "content-type": body.contentType, "content-length": String(body.length) },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (incoming) => {
      let text = "";
      incoming.setEncoding("utf8");
      incoming.on("data", (chunk: string) => {
        text += chunk;
      });
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, body: text }));
      incoming.on("error", reject);
    });
    writeBody(outgoing, body).catch((error: unknown) => {
      outgoing.destroy();
      reject(error);
    });
  });
}

async function writeBody(outgoing: ReturnType<typeof request>, body: MultipartBody) {
  const drained = () =>
    new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        outgoing.off("close", onClose);
        resolve();
      };
      const onClose = () => {
        outgoing.off("drain", onDrain);
        reject(new Error("the connection closed before the body was sent"));
      };
      outgoing.once("drain", onDrain);
      outgoing.once("close", onClose);
    });
  if (!outgoing.write(body.head)) await drained();
  for (let sent = 0; sent < body.size; sent += block.length) {
    const chunk = body.size - sent >= block.length ? block : block.subarray(0, body.size - sent);
    if (!outgoing.write(chunk)) await drained();
  }
  outgoing.end(body.tail);
}
