/** A fresh fs blob store per test, in a temporary folder, and ways to ask it for downloads. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createFsBlobStore, type FsBlobStoreOptions } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { BlobStore } from "../../src/ports/blob-store.ts";

export const storageUrl = "http://localhost:3000/storage";
export const signingSecret = "a test secret of a decent length, 0123456789";
export const info = { contentType: "text/plain", filename: "notes.txt" };
export const inAMinute = () => new Date(Date.now() + 60_000);

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A new temporary folder, removed after the test file. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "formwork-fs-blobs-"));
  temporary.push(dir);
  return dir;
}

/** A store over a new temporary folder unless `options` name one. */
export async function store(options: Partial<FsBlobStoreOptions> = {}): Promise<BlobStore> {
  const directory = options.directory ?? (await tempDir());
  return createFsBlobStore({ directory, storageUrl, signingSecret, ...options });
}

const services = new WeakMap<BlobStore, FormService>();
const started: FormService[] = [];
after(() => Promise.all(started.map((service) => service.close())));

/**
 * The answer of a service over `blobs` to a request, which must be one the store serves
 * (under its storage URL): the store answers downloads, the service its refusals.
 */
export async function serve(blobs: BlobStore, url: string, init?: RequestInit): Promise<Response> {
  let service = services.get(blobs);
  if (!service) {
    service = createFormService({ store: createMemoryStore(), blobs, sweepIntervalMs: 0 });
    services.set(blobs, service);
    started.push(service);
  }
  const response = await service.fetch(new Request(url, init));
  const routed = response.status === 404 && (await response.clone().json()).message;
  if (routed === "No such endpoint") throw new Error(`not served: ${url}`);
  return response;
}

/** The status of the store's answer, its body read so that no file stays open. */
export async function statusOf(blobs: BlobStore, url: string): Promise<number> {
  const response = await serve(blobs, url);
  await response.arrayBuffer();
  return response.status;
}

/** A body of UTF-8 text. */
export function body(text: string): ReadableStream<Uint8Array> {
  return new Response(text).body as ReadableStream<Uint8Array>;
}

/** A read link for blob `name` of container `c1`, valid for a minute. */
export function sign(blobs: BlobStore, name = "b1"): Promise<string> {
  return blobs.signedQuery("c1", name, inAMinute());
}
