import { ServiceError } from "../../kernel/errors.ts";
import type { BlobStore } from "../../ports/blob-store.ts";
import type { Context } from "../context.ts";

/**
 * The blob store, which attachments need.
 * @throws {ServiceError} 503 when the service was created without one.
 */
export function blobsOf(ctx: Context): BlobStore {
  if (!ctx.blobs) {
    throw new ServiceError("service_unavailable", "This service has no file storage configured");
  }
  return ctx.blobs;
}

function expiry(ctx: Context): Date {
  return new Date(ctx.now().getTime() + ctx.limits.signedLinkSeconds * 1000);
}

/** The signed query string (`?sv=…&sig=…`) that lets its holder read one attachment. */
export function attachmentQuery(ctx: Context, formId: string, attachmentId: string) {
  return blobsOf(ctx).signedQuery(formId, attachmentId, expiry(ctx));
}

/** A full temporary download link of one attachment (S4). */
export async function attachmentLink(ctx: Context, formId: string, attachmentId: string) {
  return linkWith(ctx, formId, attachmentId, await attachmentQuery(ctx, formId, attachmentId));
}

/** The download link of one attachment with its signed `query`, as {@link attachmentQuery} gave it. */
export function linkWith(ctx: Context, formId: string, attachmentId: string, query: string) {
  return blobsOf(ctx).blobUrl(formId, attachmentId) + query;
}

/** The signed query string that lets its holder read every attachment of a form (S5). */
export function containerQuery(ctx: Context, formId: string) {
  return blobsOf(ctx).signedQuery(formId, undefined, expiry(ctx));
}
