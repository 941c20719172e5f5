import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { BlobServiceClient } from "@azure/storage-blob";
import { createAzureBlobStore } from "../../adapters/azure-blob/index.ts";
import { StoreUnavailableError } from "../../src/ports/index.ts";
import { runBlobStoreConformance } from "../../src/testing/node-test.ts";
import { devAccount, startAzurite } from "../emulators/azurite.ts";

const azurite = await startAzurite();
const store = () => createAzureBlobStore({ connectionString: azurite.connectionString });
const text = (value: string) => new Response(value).body as ReadableStream<Uint8Array>;
const info = { contentType: "text/plain", filename: "notes.txt" };

runBlobStoreConformance({
  name: "azure-blob (Azurite)",
  create: async () => store(),
  download: (url) => fetch(url),
});

describe("azure blob store", () => {
  it("keeps info as the blob's headers and exact metadata, Azure serving the download", async () => {
    const blobs = store();
    const container = randomUUID();
    const tricky = { contentType: "text/html\r\nx: y", filename: "a/b\u0007 ü.txt" };
    await blobs.put(container, "a", text("hi"), tricky);
    assert.deepEqual((await blobs.get(container, "a"))?.info, tricky);
    const url = blobs.blobUrl(container, "a");
    assert.equal(url, `${azurite.blobEndpoint}/${container}/a`);
    const response = await fetch(url + (await blobs.signedQuery(container, "a", inAMinute())));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/octet-stream");
    assert.equal(
      response.headers.get("content-disposition"),
      `attachment; filename="a_b ?.txt"; filename*=UTF-8''a_b%20%C3%BC.txt`,
    );
    assert.equal(await response.text(), "hi");
    await blobs.deleteContainer(container);
  });

  it("signs with the SDK's SAS shape: sv, se, sr, sp, sig and nothing else", async () => {
    const query = await store().signedQuery(randomUUID(), "a", inAMinute());
    assert.match(query, /^\?sv=[^&]+&se=[^&]+&sr=b&sp=r&sig=[^&]+$/);
  });

  it("accepts an existing client, and refuses names Azure would refuse", async () => {
    const serviceClient = BlobServiceClient.fromConnectionString(azurite.connectionString);
    const blobs = createAzureBlobStore({ serviceClient });
    assert.equal(await blobs.get(randomUUID(), "missing"), null);
    for (const bad of ["ab", "Upper-Case", "a--b", "-ab", "x".repeat(64)]) {
      await assert.rejects(blobs.put(bad, "a", text("x"), info), TypeError);
      assert.throws(() => blobs.blobUrl(bad, "a"), TypeError);
    }
    await assert.rejects(blobs.signedQuery(randomUUID(), "", inAMinute()), TypeError);
    assert.throws(() => createAzureBlobStore({}), TypeError);
  });

  it("answers 503 when the storage endpoint cannot be reached", async () => {
    const port = await closedPort();
    const connectionString = `DefaultEndpointsProtocol=http;AccountName=${devAccount.name};AccountKey=${devAccount.key};BlobEndpoint=http://127.0.0.1:${port}/${devAccount.name};`;
    const blobs = createAzureBlobStore({
      connectionString,
      retryOptions: { maxTries: 2, retryDelayInMs: 10, maxRetryDelayInMs: 20 },
    });
    const unavailable = (error: unknown) => error instanceof StoreUnavailableError;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(1024)),
      cancel: () => {
        cancelled = true;
      },
    });
    await assert.rejects(blobs.put(randomUUID(), "a", body, info), unavailable);
    assert.ok(cancelled, "the body was cancelled");
    await assert.rejects(blobs.get(randomUUID(), "a"), unavailable);
    await assert.rejects(blobs.delete(randomUUID(), "a"), unavailable);
  });
});

function inAMinute(): Date {
  return new Date(Date.now() + 60_000);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
