import { createHash } from "node:crypto";
import { ValidationError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { fileTooLarge, type IncomingFile } from "../../kernel/incoming-file.ts";
import { createdAt } from "../../kernel/timestamps.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import { type FormDefinition, fieldsOf } from "../forms/form-definition.ts";
import { storageQuotaOf } from "../quotas/storage-quota.ts";
import type { Device } from "../records/device.ts";
import {
  type Answered,
  answerOnce,
  fingerprintOf,
  type IdempotentRequest,
  idempotentRequest,
  keyOps,
  readKey,
  replayOf,
} from "../records/idempotency-keys.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";
import { blobsOf } from "./signed-links.ts";
import { holdUpload } from "./upload-holds.ts";

/**
 * S3: streams one uploaded file into the blob store as a new attachment of the form,
 * waiting for a submission to claim it. Before the file is written, its record is created
 * as the upload's hold on the storage quota and the unclaimed-upload cap, with a note for
 * the sweep (upload-holds.ts); once the file is stored, the record takes its real size.
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
  idempotency?: IdempotentRequest,
): Promise<string> {
  const blobs = blobsOf(ctx);
  const field = fileFieldFor(access.form.form_definition, file);
  const limit = Math.min(field.max_file_size ?? Number.POSITIVE_INFINITY, ctx.limits.uploadBytes);
  const { form } = access;
  const record = uploadRecord(ctx, form.id, field.unique_system_name, file, caller, device);
  const quota = await storageQuotaOf(ctx, form.owner_user_id);
  const hold = await holdUpload(ctx, form, record, quota, limit);
  try {
    const bytes = file.open(hold.held, hold.refusal);
    const size = await blobs.put(
      form.id,
      record.id,
      idempotency ? fingerprinted(bytes, form.id, file, idempotency) : bytes,
      { contentType: record.content_type, filename: file.filename },
    );
    await hold.settle(size, idempotency && (() => keyOps(ctx, idempotency, record.id)));
  } catch (error) {
    // What the store holds of the upload goes first: a crash after it leaves only a file,
    // which the sweep finds through the upload note.
    await hold.release();
    await blobs.delete(form.id, record.id);
    throw error;
  }
  return record.id;
}

/**
 * S3 with an `Idempotency-Key` (docs/design.md §6). The fingerprint covers the form, the
 * part's name, file name and type, and the file's bytes. A key already answered is read
 * first (one store call), so that a retry's file is only hashed, never stored again; only a
 * new upload passes `screen` (the form's bot challenge: a retry need not solve another).
 * @returns the attachment's id, and whether it is the key's first answer again.
 */
export async function storeAttachmentOnce(
  ctx: Context,
  access: FormAccess,
  caller: Caller | null,
  file: IncomingFile,
  device: Device,
  key: string,
  screen: () => Promise<void> = async () => {},
): Promise<Answered<string>> {
  const formId = access.form.id;
  const request = idempotentRequest(formId, caller?.userId ?? null, key, null);
  const earlier = await readKey(ctx, request);
  if (!earlier) {
    await screen();
    const store = () => storeAttachment(ctx, access, caller, file, device, request);
    return answerOnce(ctx, request, store, false);
  }
  const limit = ctx.limits.uploadBytes;
  const reader = fingerprinted(
    file.open(limit, () => fileTooLarge(limit)),
    formId,
    file,
    request,
  );
  for await (const _ of reader);
  return { answer: replayOf(ctx, request, earlier).answer as string, replayed: true };
}

/** `bytes` passed on as they are; once read whole, `request` gets the upload's fingerprint. */
function fingerprinted(
  bytes: ReadableStream<Uint8Array>,
  formId: string,
  file: IncomingFile,
  request: IdempotentRequest,
): ReadableStream<Uint8Array> {
  const hash = createHash("sha256");
  return bytes.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        const { fieldName, filename, mediaType } = file;
        const what = `S3 ${formId}\n${fieldName}\n${filename}\n${mediaType}\n${hash.digest("hex")}`;
        request.fingerprint = fingerprintOf(what);
      },
    }),
  );
}

/**
 * The file field `file` is uploaded to.
 * @throws {ValidationError} when the part names no file field of the form, or the field does
 *   not accept the file's type.
 */
function fileFieldFor(definition: FormDefinition, file: IncomingFile) {
  const field = fieldsOf(definition).find(
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
  return field;
}

/** The attachment record of a new upload, unclaimed and of no size yet. */
function uploadRecord(
  ctx: Context,
  formId: string,
  fieldName: string,
  file: IncomingFile,
  caller: Caller | null,
  device: Device,
): AttachmentRecord {
  return {
    form_id: formId,
    unsafe_original_filename: file.filename,
    file_size: 0,
    created_by_verified_email_address: caller?.email ?? "",
    created_by_device: device,
    unique_system_name: fieldName,
    content_type: file.mediaType || "application/octet-stream",
    submission_id: null,
    id: newId(),
    ...createdAt(ctx.now()),
  };
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
