import { finished, Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import { BodyAbortedError, ServiceError, ValidationError } from "../kernel/errors.ts";
import type { IncomingFile } from "../kernel/incoming-file.ts";
import { filePartBody } from "./file-part.ts";

/**
 * Receives the single file part of a `multipart/form-data` request and hands it to
 * `handle` while it streams, never holding the file in memory (busboy). The body is read
 * from `hostBody` when the host passes its own (the `IncomingMessage` of `node:http`: no
 * conversion from a web stream), else from `request.body`. Any other part, a second file,
 * or no file at all is a 400; a failure of `handle` (such as a size limit) stops parsing
 * the request at once.
 * @throws {ServiceError} 415 when the request is not `multipart/form-data` with a boundary;
 *   {BodyAbortedError} when the body stops short.
 */
export async function receiveFile<T>(
  request: Request,
  handle: (file: IncomingFile) => Promise<T>,
  hostBody?: AsyncIterable<Uint8Array>,
): Promise<T> {
  const type = request.headers.get("content-type") ?? "";
  // `request.body` is looked at only without a host body: a Node bridge may start reading
  // the request into a web stream as soon as that getter runs (`@hono/node-server` does).
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(type) || !(hostBody ?? request.body)) {
    throw new ServiceError(
      "unsupported_media_type",
      "The upload must be multipart/form-data with a boundary",
    );
  }
  const { source, stop } = bodySource(request, hostBody);
  const parser = Busboy({ headers: { "content-type": type }, limits: { parts: 20 } });
  const outcome = new Promise<T>((resolve, reject) => {
    let handled: Promise<T> | null = null;
    let file: BusboyFileStream | null = null;
    const fail = (error: unknown) => {
      source.unpipe(parser);
      stop();
      // The handler may be waiting for bytes that will never come: end its stream too.
      file?.destroy(error instanceof Error ? error : new Error(String(error)));
      reject(error);
    };
    parser.on("file", (fieldName, stream, filename, _encoding, mediaType) => {
      if (handled) {
        stream.resume();
        return fail(malformed("Send one file per request"));
      }
      file = stream;
      // `fail` destroys the part with its error, perhaps before the handler opened it: the
      // error is the upload's, answered already, and reaches an opened body on its own.
      stream.on("error", () => {});
      const open = (limit: number, refusal: () => ServiceError) =>
        filePartBody(stream, limit, refusal);
      handled = handle({ fieldName, filename, mediaType, open });
      handled.catch(fail);
    });
    parser.on("field", (name) => fail(malformed(`Unexpected non-file part ${name}`)));
    parser.on("error", () => fail(malformed("The multipart body is malformed")));
    parser.on("finish", () => {
      if (!handled) return fail(malformed("The request holds no file part"));
      handled.then(resolve, fail);
    });
    // An error, or a close before the end: Node's request may only close when its client
    // goes away mid-body, and busboy would then wait for the rest for ever.
    finished(source, (cause) => {
      if (cause) fail(new BodyAbortedError({ cause }));
    });
  });
  source.pipe(parser);
  return outcome;
}

/**
 * The body as a Node stream for busboy, and how to stop reading it when the upload fails.
 * The host's own stream is left to the host, read on and dropped (as Node does with a body
 * nobody reads) so that the answer reaches the client; a stream made here is destroyed.
 */
function bodySource(request: Request, hostBody: AsyncIterable<Uint8Array> | undefined) {
  if (hostBody instanceof Readable) return { source: hostBody, stop: () => hostBody.resume() };
  const source = hostBody
    ? Readable.from(hostBody, { objectMode: false })
    : Readable.fromWeb(request.body as NodeWebStream<Uint8Array>);
  return { source, stop: () => source.destroy() };
}

function malformed(message: string): ValidationError {
  return new ValidationError(message);
}
