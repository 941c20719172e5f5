import { StoreConflictError } from "../../ports/store.ts";
import { type Context, collections } from "../context.ts";
import { type FormAccess, formNotFound } from "./form-access.ts";
import type { FormRecord } from "./form-record.ts";
import { formChanged } from "./form-snapshots.ts";

const attempts = 5;

/**
 * Applies `change` to a form and writes it back conditionally on its etag. When another
 * write got there first, it reads the form again and re-applies `change`, so that two
 * concurrent edits of different sections both survive. Then it moves the form's version, so
 * that no instance posts to the form as it was (form-snapshots.ts).
 * @throws {NotFoundError} when the form was deleted meanwhile.
 */
export async function saveForm(
  ctx: Context,
  access: FormAccess,
  change: (form: FormRecord) => void,
): Promise<FormRecord> {
  const saved = await writeForm(ctx, access, change);
  // Outside the retries: a contended version count must not make the edit apply twice.
  await formChanged(ctx, saved.id);
  return saved;
}

async function writeForm(
  ctx: Context,
  access: FormAccess,
  change: (form: FormRecord) => void,
): Promise<FormRecord> {
  let { form, etag } = access;
  for (let attempt = 1; ; attempt++) {
    const next = structuredClone(form);
    change(next);
    next.modified_date_utc = ctx.now().toISOString();
    try {
      const saved = await ctx.store.replace(collections.forms, next.id, next, { ifMatch: etag });
      if (!saved) throw formNotFound();
      return saved.record;
    } catch (error) {
      if (!(error instanceof StoreConflictError) || attempt === attempts) throw error;
      const fresh = await ctx.store.get<FormRecord>(collections.forms, form.id, form.id);
      if (!fresh) throw formNotFound();
      ({ record: form, etag } = fresh);
    }
  }
}
