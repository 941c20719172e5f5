import { resolve, sep } from "node:path";
import { fsBlobError } from "./errors.ts";

/**
 * What a container or blob name may be: letters, digits, `_` and `-`, starting with a
 * letter or digit, at most 128 characters. No dots and no slashes, so a name is always one
 * plain path segment and never `.`, `..` or one of the store's own dot-folders.
 */
const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Whether `name` may be a container or blob name. */
export function isName(name: string): boolean {
  return namePattern.test(name);
}

/** Where the store keeps its files, resolved once, and the folders it keeps beside blobs. */
export class Layout {
  /** The absolute data folder. */
  readonly root: string;
  private readonly prefix: string;
  /** Blobs being written, renamed into place once complete. */
  readonly partial: string;
  /** Containers being deleted, moved here first so that they vanish at once. */
  readonly trash: string;

  constructor(directory: string) {
    this.root = resolve(directory);
    this.prefix = this.root.endsWith(sep) ? this.root : this.root + sep;
    this.partial = this.inside(".partial");
    this.trash = this.inside(".trash");
  }

  /** The folder of a container. @throws when the name is not a valid name */
  container(container: string): string {
    return this.inside(checked("container", container));
  }

  /** The file of a blob. @throws when either name is not a valid name */
  blob(container: string, name: string): string {
    return this.inside(checked("container", container), checked("blob", name));
  }

  /** Resolves a path below the root, refusing anything that would leave it. */
  private inside(...segments: string[]): string {
    const path = resolve(this.root, ...segments);
    // The name pattern already rules this out; this check keeps it true if the pattern changes.
    if (!path.startsWith(this.prefix)) {
      throw fsBlobError(`refusing a path outside ${this.root}: ${segments.join("/")}`);
    }
    return path;
  }
}

function checked(kind: "container" | "blob", name: string): string {
  if (isName(name)) return name;
  throw fsBlobError(`invalid ${kind} name ${JSON.stringify(name)}: use letters, digits, _ and -`);
}
