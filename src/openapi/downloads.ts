import * as v from "valibot";
import type { Operation } from "./operation.ts";

/** The signed query string of a download link (the shape of an Azure SAS). */
const signedQuery = v.object({
  sv: v.string(),
  se: v.pipe(v.string(), v.description("The link's expiry, `YYYY-MM-DDTHH:MM:SSZ`.")),
  sr: v.picklist(["b", "c"]),
  sp: v.literal("r"),
  sig: v.string(),
});

/**
 * The downloads the blob store serves itself (the fs store), before the router: documented
 * here, served by no route.
 */
export const downloadOperations: Operation[] = (["get", "head"] as const).map(
  (method): Operation => ({
    method,
    path: "/storage/:container/:blobName",
    operationId: method === "get" ? "downloadFile" : "downloadFileHead",
    ref: "extension",
    summary: "Download a file through a signed link",
    description:
      "The links of S1, S4 and S5 when the blob store is served by the service itself (the fs store): this path is its `storageUrl` (`PUBLIC_URL/storage` for the standalone server). With Azure Blob, the links point to Azure instead. Files are answered as attachments, with `X-Content-Type-Options: nosniff`.",
    tag: "Pages",
    auth: "none",
    pathDescriptions: {
      container: "The form id.",
      blobName: "The attachment id.",
    },
    query: signedQuery,
    response: { description: "The file.", schema: "download" },
    // 403: the link is not genuine, or has expired; 404: no such file.
    failures: [403, 404, 500, 503],
    beforeRouter: "blob store",
  }),
);
