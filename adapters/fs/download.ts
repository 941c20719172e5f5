/**
 * Serves the fs blob store's signed links under its storage path: checks the link, then
 * streams the blob as an attachment that browsers neither render nor sniff. Refusals are
 * thrown as `DownloadRefusedError`s, which the service answers with its failure envelope.
 */

import { DownloadRefusedError } from "formwork/ports";
import { downloadHeaders } from "formwork/ports/kit";
import type { OpenBlob } from "./blob-file.ts";
import { isName } from "./names.ts";
import { checkQuery } from "./signed-query.ts";

/** What serving a download needs from the store. */
export interface Downloads {
  /** The storage URL's pathname without its trailing slash; never empty (see `index.ts`). */
  storagePath: string;
  secret: Uint8Array;
  now(): Date;
  /** The longest a link may still have to live when it is used, in milliseconds. */
  maxLifetimeMs: number;
  open(container: string, name: string): Promise<OpenBlob | null>;
}

const refusals = {
  invalid: "This link is not valid",
  expired: "This link has expired",
  too_long: "This link lives longer than this store allows",
};

const commonHeaders = {
  "x-content-type-options": "nosniff",
  "cache-control": "private, no-store",
};

/**
 * Answers a download request, or `null` when its path is not under the storage path.
 * @throws {DownloadRefusedError} for a method other than GET and HEAD, a link that is not
 *   valid, or a file that is not there
 */
export async function serveDownload(
  downloads: Downloads,
  request: Request,
): Promise<Response | null> {
  const url = new URL(request.url);
  const { storagePath } = downloads;
  if (url.pathname !== storagePath && !url.pathname.startsWith(`${storagePath}/`)) return null;
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new DownloadRefusedError("method_not_allowed", "Only GET and HEAD are allowed here", [
      "GET",
      "HEAD",
    ]);
  }
  // Names are never percent-decoded: a valid name has nothing to decode, so `%2F` or
  // `%2e` in a segment simply makes it no name at all.
  const [container = "", name = "", ...rest] = url.pathname
    .slice(storagePath.length + 1)
    .split("/");
  if (rest.length > 0 || !isName(container) || !isName(name)) {
    throw noSuchFile();
  }
  const { secret, maxLifetimeMs } = downloads;
  const check = checkQuery(
    secret,
    url.searchParams,
    container,
    name,
    downloads.now(),
    maxLifetimeMs,
  );
  if (!check.ok) throw new DownloadRefusedError("forbidden", refusals[check.reason]);
  const blob = await downloads.open(container, name);
  if (!blob) throw noSuchFile();
  const { contentType, contentDisposition } = downloadHeaders(blob.info, name);
  const headers = {
    ...commonHeaders,
    "content-type": contentType,
    "content-length": String(blob.size),
    "content-disposition": contentDisposition,
  };
  if (request.method === "HEAD") {
    await blob.body.cancel();
    return new Response(null, { status: 200, headers });
  }
  return new Response(blob.body, { status: 200, headers });
}

function noSuchFile(): DownloadRefusedError {
  return new DownloadRefusedError("not_found", "No such file");
}
