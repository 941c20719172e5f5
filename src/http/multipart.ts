import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import { BodyAbortedError, ServiceError, ValidationError } from "../kernel/errors.ts";

/** One uploaded file, as it streams in. */
export interface IncomingFile {
  /** The part's name: for S3, the system name of a file field. */
  fieldName: string;
  /** The file name the client gave; untrusted. */
  filename: string;
  /** The part's declared media type; untrusted. */
  mediaType: string;
  /** The file's bytes. Read it once; cancelling it abandons the upload. */
  body: ReadableStream<Uint8Array>;
}

/**
 * Receives the single file part of a `multipart/form-data` request and hands it to
 * `handle` while it streams, never holding the file in memory (busboy, fed from the web
 * request stream). Any other part, a second file, or no file at all is a 400; a failure of
 * `handle` (such as a size limit) stops reading the request at once.
 * @throws {ServiceError} 415 when the request is not `multipart/form-data` with a boundary;
 *   {BodyAbortedError} when the body stops short.
 */
export async function receiveFile<T>(
  request: Request,
  handle: (file: IncomingFile) => Promise<T>,
): Promise<T> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(type) || !request.body) {
    throw new ServiceError(
      "unsupported_media_type",
      "The upload must be multipart/form-data with a boundary",
    );
  }
  const source = Readable.fromWeb(request.body as NodeWebStream<Uint8Array>);
  const parser = Busboy({ headers: { "content-type": type }, limits: { parts: 20 } });
  const outcome = new Promise<T>((resolve, reject) => {
    let handled: Promise<T> | null = null;
    let file: BusboyFileStream | null = null;
    const fail = (error: unknown) => {
      source.unpipe(parser);
      source.destroy();
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
      handled = handle({ fieldName, filename, mediaType, body: webStreamOf(stream) });
      handled.catch(fail);
    });
    parser.on("field", (name) => fail(malformed(`Unexpected non-file part ${name}`)));
    parser.on("error", () => fail(malformed("The multipart body is malformed")));
    parser.on("finish", () => {
      if (!handled) return fail(malformed("The request holds no file part"));
      handled.then(resolve, fail);
    });
    source.on("error", (cause) => fail(new BodyAbortedError({ cause })));
  });
  source.pipe(parser);
  return outcome;
}

function webStreamOf(stream: BusboyFileStream): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
}

function malformed(message: string): ValidationError {
  return new ValidationError(message);
}

/**
 * Passes bytes through until more than `limit` have gone by, then fails with `refusal`
 * (a 413 unless told otherwise), so that the consumer stops and the rest is never read.
 */
export function byteLimit(
  limit: number,
  refusal: () => ServiceError = () => fileTooLarge(limit),
): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > limit) controller.error(refusal());
      else controller.enqueue(chunk);
    },
  });
}

/** The 413 of a file larger than `limit` bytes. */
export function fileTooLarge(limit: number): ServiceError {
  return new ServiceError("payload_too_large", `The file is larger than ${limit} bytes`);
}
