import { updateRecord } from "../../ports/update-record.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { type FormAccess, formNotFound } from "./form-access.ts";
import type { FormRecord } from "./form-record.ts";
import { formChanged } from "./form-snapshots.ts";

/**
 * Applies `change` to a form and writes it back conditionally on its etag. When another
 * write got there first, it reads the form again and re-applies `change` (`updateRecord`'s
 * policy), so that two concurrent edits of different sections both survive. Then it moves
 * the form's version, so that no instance posts to the form as it was (form-snapshots.ts).
 * @throws {NotFoundError} when the form was deleted meanwhile.
 */
export async function saveForm(
  ctx: Context,
  access: FormAccess,
  change: (form: FormRecord) => void,
): Promise<FormRecord> {
  const known = { record: access.form, etag: access.etag };
  const saved = await updateRecord<FormRecord>(
    ctx.store,
    collections.forms,
    access.form.id,
    access.form.id,
    (form) => {
      if (!form) throw formNotFound();
      const next = structuredClone(form) as FormRecord;
      change(next);
      next.modified_date_utc = ctx.now().toISOString();
      return next;
    },
    { known },
  );
  if (!saved) throw formNotFound();
  // Outside the retries: a contended version count must not make the edit apply twice.
  await formChanged(ctx, saved.record.id);
  return saved.record;
}
