import type { Caller } from "../auth/caller.ts";
import { type Context, collections } from "../context.ts";
import type { Device } from "../device.ts";
import { ValidationError } from "../errors.ts";
import type { IncomingFile } from "../http/multipart.ts";
import { newId } from "../ids.ts";
import { createdAt } from "../timestamps.ts";
import { uploadBucketOf } from "./attachment-sweep.ts";
import type { FormAccess } from "./form-access.ts";
import { fieldsOf } from "./form-definition.ts";
import type { FormRecord } from "./form-record.ts";
import { blobsOf } from "./signed-links.ts";
import { reserveFileStorage, storageQuotaOf } from "./storage-quota.ts";
import type { AttachmentRecord } from "./submission-record.ts";
import { reserveUnclaimedBytes, type UnclaimedReservation } from "./unclaimed-uploads.ts";

/**
 * S3: streams one uploaded file into the blob store as a new attachment of the form,
 * waiting for a submission to claim it. The upload is noted for the sweep before the file
 * is written, so that a file whose record never gets written is still found and removed.
 * @returns the new attachment's id.
 * @throws {ValidationError} when the part does not name a file field or the file is not of
 *   a type the field accepts; a 413 when it is larger than the field or the service allows,
 *   or when the form's unclaimed uploads would pass their cap (see `unclaimed-uploads.ts`).
 */
export async function storeAttachment(
  ctx: Context,
  access: FormAccess,
  caller: Caller | null,
  file: IncomingFile,
  device: Device,
): Promise<string> {
  const blobs = blobsOf(ctx);
  const field = fieldsOf(access.form.form_definition).find(
    (candidate) => candidate.unique_system_name === file.fieldName,
  );
  if (field?.type !== "file") {
    throw new ValidationError(`${file.fieldName} is not a file field of this form`, [
      { path: file.fieldName, message: "is not a file field of this form" },
    ]);
  }
  if (field.accept && !accepts(field.accept, file)) {
    throw new ValidationError(`${file.fieldName} does not accept this type of file`, [
      { path: file.fieldName, message: `accepts ${field.accept.join(", ")}` },
    ]);
  }
  const limit = Math.min(field.max_file_size ?? Number.POSITIVE_INFINITY, ctx.limits.uploadBytes);
  const formId = access.form.id;
  const id = newId();
  const now = ctx.now();
  await ctx.store.create(collections.uploads, uploadBucketOf(now), { id, form_id: formId });
  const contentType = file.mediaType || "application/octet-stream";
  const stored = await putWithinBounds(
    ctx,
    access.form,
    id,
    { ...file, mediaType: contentType },
    limit,
  );
  const record: AttachmentRecord = {
    form_id: formId,
    unsafe_original_filename: file.filename,
    file_size: stored.size,
    created_by_verified_email_address: caller?.email ?? "",
    created_by_device: device,
    unique_system_name: field.unique_system_name,
    content_type: contentType,
    submission_id: null,
    id,
    ...createdAt(now),
  };
  try {
    await ctx.store.create(collections.attachments, formId, record);
  } catch (error) {
    await blobs.delete(formId, id);
    await stored.giveBack();
    throw error;
  }
  return id;
}

/**
 * Writes the file to the blob store within its byte bounds: `limit`, the form's cap on
 * unclaimed uploads, and the owner's storage quota. Both counts keep the stored size.
 * @returns the stored size, and a function that gives both counts back.
 */
async function putWithinBounds(
  ctx: Context,
  form: FormRecord,
  id: string,
  file: IncomingFile,
  limit: number,
): Promise<{ size: number; giveBack(): Promise<void> }> {
  const quota = await storageQuotaOf(ctx, form.owner_user_id);
  // The quota first: when both bounds bite, the owner's quota is the one to name.
  const storage = await reserveFileStorage(ctx, form.owner_user_id, quota, limit);
  let unclaimed: UnclaimedReservation;
  try {
    unclaimed = await reserveUnclaimedBytes(ctx, form.id, quota, limit);
  } catch (error) {
    await storage.giveBack();
    throw error;
  }
  const body = unclaimed.cap(storage.cap(file.body, limit), limit);
  let size: number;
  try {
    size = await storage.settle(() =>
      blobsOf(ctx).put(form.id, id, body, {
        contentType: file.mediaType,
        filename: file.filename,
      }),
    );
  } catch (error) {
    await unclaimed.giveBack();
    throw error;
  }
  await unclaimed.keep(size);
  const giveBack = async () => {
    await storage.giveBack();
    await unclaimed.giveBack();
  };
  return { size, giveBack };
}

/** Whether a file matches one of `accept`: `.ext`, `type/subtype` or `type/*`. */
function accepts(accept: string[], file: IncomingFile): boolean {
  const name = file.filename.toLowerCase();
  const type = file.mediaType.toLowerCase();
  return accept.some((rule) => {
    const wanted = rule.trim().toLowerCase();
    if (wanted.startsWith(".")) return name.endsWith(wanted);
    if (wanted.endsWith("/*")) return type.startsWith(wanted.slice(0, -1));
    return type === wanted;
  });
}
