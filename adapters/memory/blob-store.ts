import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type BlobInfo, type BlobStore, DownloadRefusedError } from "formwork/ports";
import { downloadHeaders } from "formwork/ports/kit";

/** Options of {@link createMemoryBlobStore}. */
export interface MemoryBlobStoreOptions {
  /**
   * The absolute URL under which `service.fetch` serves the store's downloads; its path may
   * not be the root. `blobUrl` answers `<storageUrl>/<container>/<name>`.
   * @default "http://localhost/storage"
   */
  storageUrl?: string;
  /** The clock that decides whether a link has expired. @default () => new Date() */
  now?: () => Date;
}

interface Entry {
  /** The bytes, copied once by `Blob` and read as often as asked. */
  bytes: Blob;
  info: BlobInfo;
}

/** The version of the links' shape, sent as `sv` (the fs store's, so that links look alike). */
const signedVersion = "2026-11-01";

const encoder = new TextEncoder();

const refusals = {
  invalid: "This link is not valid",
  expired: "This link has expired",
  missing: "No such file",
};

/**
 * The executable spec of the `BlobStore` port: plain maps of `Blob`s, served by the service
 * itself under `storageUrl` (`fetch`) through signed links shaped like the fs store's (Azure
 * SAS: `?sv=&se=&sr=&sp=&sig=`), signed with HMAC-SHA256 under a key drawn for this store.
 * Nothing survives the process, links included. Touches nothing until used.
 * @throws {TypeError} when `storageUrl` is not an absolute URL with a path (not just `/`) and
 *   without query or fragment, or `now` is not a function
 */
export function createMemoryBlobStore(options: MemoryBlobStoreOptions = {}): BlobStore {
  const { now = () => new Date() } = options;
  if (typeof now !== "function") throw new TypeError("memory blob store: now must be a function");
  const storageUrl = checkStorageUrl(options.storageUrl ?? "http://localhost/storage");
  const storagePath = new URL(storageUrl).pathname;
  const key = randomBytes(32);
  const containers = new Map<string, Map<string, Entry>>();
  const sign = (fields: string[]) =>
    createHmac("sha256", key).update(fields.join("\n")).digest("base64");

  /** Why the link `query` does not open blob `name` of `container`, or `null` when it does. */
  function refusal(query: URLSearchParams, container: string, name: string) {
    const field = (key: string) => query.get(key) ?? "";
    const [sv, se, sr, sp, sig] = [
      field("sv"),
      field("se"),
      field("sr"),
      field("sp"),
      field("sig"),
    ];
    const resource = sr === "b" ? `/${container}/${name}` : sr === "c" ? `/${container}` : "";
    if (sv !== signedVersion || sp !== "r" || !resource) return refusals.invalid;
    const expected = encoder.encode(sign([sv, se, sr, sp, resource]));
    const given = encoder.encode(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return refusals.invalid;
    }
    return Date.parse(se) > now().getTime() ? null : refusals.expired;
  }

  return {
    async put(container, name, body, info) {
      const chunks = await readAll(body);
      // `Blob` copies the bytes of any view; its types know views of an `ArrayBuffer` only.
      const entry = { bytes: new Blob(chunks as BlobPart[]), info: { ...info } };
      const blobs = containers.get(container) ?? new Map<string, Entry>();
      containers.set(container, blobs);
      blobs.set(name, entry);
      return entry.bytes.size;
    },

    async get(container, name) {
      const entry = containers.get(container)?.get(name);
      return entry ? { body: entry.bytes.stream(), info: { ...entry.info } } : null;
    },

    async delete(container, name) {
      return containers.get(container)?.delete(name) ?? false;
    },

    async deleteContainer(container) {
      containers.delete(container);
    },

    async signedQuery(container, name, expiresAt) {
      if (Number.isNaN(expiresAt.getTime())) throw new RangeError("expiresAt is not a valid date");
      const se = `${expiresAt.toISOString().slice(0, 19)}Z`;
      const sr = name === undefined ? "c" : "b";
      const resource = name === undefined ? `/${container}` : `/${container}/${name}`;
      const sig = sign([signedVersion, se, sr, "r", resource]);
      return `?${new URLSearchParams({ sv: signedVersion, se, sr, sp: "r", sig })}`;
    },

    blobUrl(container, name) {
      return `${storageUrl}/${encodeURIComponent(container)}/${encodeURIComponent(name)}`;
    },

    async fetch(request) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(`${storagePath}/`)) return null;
      if (request.method !== "GET" && request.method !== "HEAD") {
        throw new DownloadRefusedError("method_not_allowed", "Only GET and HEAD are allowed here", [
          "GET",
          "HEAD",
        ]);
      }
      const [container, name] = segments(url.pathname.slice(storagePath.length + 1));
      if (container === undefined || name === undefined) {
        throw new DownloadRefusedError("not_found", refusals.missing);
      }
      const refused = refusal(url.searchParams, container, name);
      if (refused) throw new DownloadRefusedError("forbidden", refused);
      const entry = containers.get(container)?.get(name);
      if (!entry) throw new DownloadRefusedError("not_found", refusals.missing);
      const { contentType, contentDisposition } = downloadHeaders(entry.info, name);
      const headers = {
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
        "content-type": contentType,
        "content-length": String(entry.bytes.size),
        "content-disposition": contentDisposition,
      };
      const body = request.method === "HEAD" ? null : entry.bytes.stream();
      return new Response(body, { status: 200, headers });
    },
  };
}

/**
 * Reads a body to its end.
 * @throws the body's error when it fails, or a `TypeError` for a chunk that is no `Uint8Array`
 */
async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) return chunks;
    if (!(next.value instanceof Uint8Array)) {
      const error = new TypeError("a blob body must yield Uint8Array chunks");
      await reader.cancel(error);
      throw error;
    }
    chunks.push(next.value);
  }
}

/** A container and a blob name from the rest of a download's path, as `blobUrl` wrote them. */
function segments(path: string): [string?, string?] {
  const parts = path.split("/");
  if (parts.length !== 2 || parts.some((part) => part === "")) return [];
  try {
    return [decodeURIComponent(parts[0] as string), decodeURIComponent(parts[1] as string)];
  } catch {
    return [];
  }
}

/** `storageUrl` without its trailing slashes. */
function checkStorageUrl(storageUrl: unknown): string {
  if (typeof storageUrl !== "string" || !URL.canParse(storageUrl)) {
    throw new TypeError(
      `memory blob store: storageUrl must be an absolute URL such as http://localhost/storage, not ${String(storageUrl)}`,
    );
  }
  const url = new URL(storageUrl);
  // A root path would put every request of the service under the storage URL.
  if (url.search || url.hash || url.pathname.replace(/\/+$/, "") === "") {
    throw new TypeError("memory blob store: storageUrl needs a path and no query or fragment");
  }
  return storageUrl.replace(/\/+$/, "");
}
