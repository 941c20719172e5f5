import { randomUUID } from "node:crypto";
import { chmod, mkdir, rename, rm, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BlobInfo, BlobStore } from "formwork/ports";
import { isNotFound } from "formwork/ports/kit";
import { openBlobFile, writeBlobFile } from "./blob-file.ts";
import { type Downloads, serveDownload } from "./download.ts";
import { fsBlobError } from "./errors.ts";
import { Layout } from "./names.ts";
import { signQuery } from "./signed-query.ts";

/** How often `put` retries publishing into a container that a concurrent delete removed. */
const publishAttempts = 3;

/** The fs `BlobStore`; see `index.ts` for its layout and guarantees. */
export class FsBlobStore implements BlobStore {
  private readonly layout: Layout;
  private readonly downloads: Downloads;
  private ready: Promise<void> | undefined;

  constructor(
    directory: string,
    private readonly storageUrl: string,
    private readonly secret: Uint8Array,
    now: () => Date,
    maxLifetimeMs: number,
  ) {
    this.layout = new Layout(directory);
    this.downloads = {
      storagePath: new URL(storageUrl).pathname.replace(/\/+$/, ""),
      secret,
      now,
      maxLifetimeMs,
      open: (container, name) => openBlobFile(this.layout.blob(container, name)),
    };
  }

  async put(
    container: string,
    name: string,
    body: ReadableStream<Uint8Array>,
    info: BlobInfo,
  ): Promise<number> {
    const target = this.layout.blob(container, name);
    await this.prepare();
    const temporary = join(this.layout.partial, randomUUID());
    try {
      const bytes = await writeBlobFile(temporary, body, info);
      await this.publish(temporary, target);
      return bytes;
    } catch (error) {
      // The put's own error matters more than a failed clean-up, which the next start redoes.
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  }

  async get(
    container: string,
    name: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; info: BlobInfo } | null> {
    const blob = await openBlobFile(this.layout.blob(container, name));
    return blob && { body: blob.body, info: blob.info };
  }

  async delete(container: string, name: string): Promise<boolean> {
    const path = this.layout.blob(container, name);
    try {
      await unlink(path);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw fsBlobError(`cannot delete ${path}`, error);
    }
  }

  async deleteContainer(container: string): Promise<void> {
    const folder = this.layout.container(container);
    await this.prepare();
    // Moving the folder away first makes every blob in it vanish at once.
    const tombstone = join(this.layout.trash, randomUUID());
    try {
      await rename(folder, tombstone);
    } catch (error) {
      if (isNotFound(error)) return;
      throw fsBlobError(`cannot delete ${folder}`, error);
    }
    try {
      await rm(tombstone, { recursive: true, force: true });
    } catch (error) {
      throw fsBlobError(`cannot remove ${tombstone}`, error);
    }
  }

  async signedQuery(container: string, name: string | undefined, expiresAt: Date) {
    if (name === undefined) this.layout.container(container);
    else this.layout.blob(container, name);
    return signQuery(this.secret, container, name, expiresAt);
  }

  blobUrl(container: string, name: string): string {
    this.layout.blob(container, name);
    return `${this.storageUrl}/${container}/${name}`;
  }

  fetch(request: Request): Promise<Response | null> {
    return serveDownload(this.downloads, request);
  }

  /** Once per store: clears what a crash left in the work folders, then creates them. */
  private prepare(): Promise<void> {
    this.ready ??= (async () => {
      const { partial, trash, root } = this.layout;
      await Promise.all([partial, trash].map((f) => rm(f, { recursive: true, force: true })));
      await Promise.all([partial, trash].map((f) => mkdir(f, { recursive: true, mode: 0o700 })));
      // The files are personal data: the owner alone may enter the folder, whatever mode an
      // older version created it with.
      await chmod(root, 0o700);
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw fsBlobError(`cannot prepare ${this.layout.root}`, error);
    });
    return this.ready;
  }

  /** Renames a finished file into place, creating its container folder when needed. */
  private async publish(temporary: string, target: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(target), { recursive: true, mode: 0o700 });
        await rename(temporary, target);
        return;
      } catch (error) {
        // A concurrent deleteContainer may remove the folder between mkdir and rename.
        if (isNotFound(error) && attempt < publishAttempts) continue;
        throw fsBlobError(`cannot publish ${target}`, error);
      }
    }
  }
}
