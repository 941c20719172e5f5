import { BodyAbortedError, ServiceError, ValidationError } from "../kernel/errors.ts";
import { jsonBounds, nestsDeeperThan } from "../kernel/json-bounds.ts";

/**
 * Reads a JSON request body of at most `limit` bytes. A missing body reads as `undefined`.
 * @throws {ServiceError} 415 for a content type other than JSON, 413 past the limit, and
 *   {ValidationError} 400 for malformed JSON or JSON nested deeper than
 *   `jsonBounds.requestDepth`, {BodyAbortedError} 400 when the body stops short. It never
 *   falls back to an empty value.
 */
export async function readJson(request: Request, limit: number): Promise<unknown> {
  const type = request.headers.get("content-type");
  if (type && !/^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(type.trim())) {
    throw new ServiceError(
      "unsupported_media_type",
      "The body must be JSON (Content-Type: application/json)",
    );
  }
  const text = await readText(request, limit);
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError("The request body is not valid JSON");
  }
  // Whatever handles the body next may walk it recursively: refuse depth bombs here. Each
  // level takes two characters at least (`[]`), so a shorter text cannot be one.
  const { requestDepth } = jsonBounds;
  if (text.length > 2 * requestDepth && nestsDeeperThan(value, requestDepth)) {
    throw new ValidationError(
      `The request body nests deeper than ${jsonBounds.requestDepth} levels`,
      [{ path: "", message: `must not nest deeper than ${jsonBounds.requestDepth} levels` }],
    );
  }
  return value;
}

/**
 * The body as text. No `async` layers between the caller and the host's read: each would
 * add promises to every JSON request, S2 included (the request path's CPU budget).
 */
function readText(request: Request, limit: number): Promise<string> {
  const length = request.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > limit) return Promise.reject(tooLarge(limit));
  // A declared length within the limit bounds the body (the HTTP parser stops at it), so
  // the whole body may be read at once. Hosts such as `@hono/node-server` then read it
  // straight from the socket, without building a web stream for it.
  if (length !== null && /^\d+$/.test(length)) {
    return request.arrayBuffer().then(
      (whole) => {
        // A request built in process is not held to its header by any parser.
        if (whole.byteLength > limit) throw tooLarge(limit);
        return decode(whole);
      },
      // Only the client's side can fail reading a request body: a disconnect mid-body.
      (cause: unknown) => {
        throw new BodyAbortedError({ cause });
      },
    );
  }
  return readStream(request, limit);
}

/**
 * Reads a request body of at most `limit` bytes as the exact bytes sent (a payment
 * provider's event, whose signature covers them).
 * @throws {ServiceError} 413 past the limit, {BodyAbortedError} 400 when the body stops short.
 */
export async function readBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  return readStreamBytes(request, limit);
}

/** The body of a request without a `Content-Length`, read chunk by chunk up to the limit. */
async function readStream(request: Request, limit: number): Promise<string> {
  return decode(await readStreamBytes(request, limit));
}

/** The body's bytes, read chunk by chunk up to the limit. */
async function readStreamBytes(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((cause: unknown) => {
      // Only the client's side can fail a request body stream: a disconnect mid-body.
      throw new BodyAbortedError({ cause });
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(bytes: ArrayBuffer | Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ValidationError("The request body is not valid UTF-8");
  }
}

function tooLarge(limit: number): ServiceError {
  return new ServiceError("payload_too_large", `The body is larger than ${limit} bytes`);
}
