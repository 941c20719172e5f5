/**
 * Sends one file of any size as a `multipart/form-data` request, generated while it is
 * sent: one 64 KiB block written again and again with the socket's backpressure respected,
 * so the sender never holds more than a block, whatever the file's size.
 */
import { randomBytes } from "node:crypto";
import { request } from "node:http";

const block = randomBytes(64 * 1024);

/** The answer to an upload. */
export interface UploadAnswer {
  status: number;
  body: string;
}

/** Uploads `size` bytes as the file part `field` to `url`. */
export function uploadFile(url: string, field: string, size: number): Promise<UploadAnswer> {
  const boundary = `----formwork-bench-${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${field}"; filename="bench.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "POST",
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(head.length + size + tail.length),
      },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (incoming) => {
      let body = "";
      incoming.setEncoding("utf8");
      incoming.on("data", (chunk: string) => {
        body += chunk;
      });
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, body }));
      incoming.on("error", reject);
    });
    writeBody(outgoing, head, size, tail).catch((error: unknown) => {
      outgoing.destroy();
      reject(error);
    });
  });
}

async function writeBody(
  outgoing: ReturnType<typeof request>,
  head: Buffer,
  size: number,
  tail: Buffer,
): Promise<void> {
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
  if (!outgoing.write(head)) await drained();
  for (let sent = 0; sent < size; sent += block.length) {
    const chunk = size - sent >= block.length ? block : block.subarray(0, size - sent);
    if (!outgoing.write(chunk)) await drained();
  }
  outgoing.end(tail);
}
