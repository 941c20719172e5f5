import { NotFoundError } from "../../kernel/errors.ts";
import { createdAt, neverModified, type Timestamps } from "../../kernel/timestamps.ts";
import { queryAll } from "../../ports/query-all.ts";
import { updateRecord } from "../../ports/update-record.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { type QuotaField, quotaField, quotaNames } from "../records/customer-quotas.ts";
import { createAccount, findAccountByEmail } from "./accounts.ts";
import { partnerProvider } from "./partners.ts";

/** The values of `partner_client_status` (written `subscription_status` in P4 and P5). */
export const customerStatuses = ["paying_customer", "free_trial"] as const;

/** A customer's status with its partner. */
export type CustomerStatus = (typeof customerStatuses)[number];

/** What P4 and P5 set on a customer: the record's own fields, quotas as strings. */
export type CustomerFields = {
  first_name: string;
  last_name: string;
  billing_subscription_plan_original_start_date: string;
  billing_subscription_plan_last_payment_date: string;
  partner_client_status: CustomerStatus;
} & Record<QuotaField, string>;

/**
 * A partner's customer, exactly as P3 lists it (interface: Customer record). Partition: the
 * partner id; id: the customer's user id, `partner_<partner id>|<guid>`. The customer is
 * also an account with that id, which is what owns its forms and datalists.
 */
export type CustomerRecord = { email: string; provider_name: string } & CustomerFields & {
    id: string;
  } & Timestamps;

/**
 * P4: registers a customer of a partner: an account under the partner's provider name and
 * the customer record. Fields not given take their defaults: names empty, billing dates
 * never set, status `free_trial`, quotas from the service's `partners.quotaDefaults`.
 * @throws {ConflictError} when any account has that e-mail already, the partner's or not.
 */
export async function addCustomer(
  ctx: Context,
  partnerId: string,
  email: string,
  given: Partial<CustomerFields>,
): Promise<CustomerRecord> {
  const account = await createAccount(ctx, email, partnerProvider(partnerId));
  const defaults = ctx.partners.quotaDefaults;
  const record: CustomerRecord = {
    email: account.email,
    provider_name: partnerProvider(partnerId),
    first_name: given.first_name ?? "",
    last_name: given.last_name ?? "",
    billing_subscription_plan_original_start_date:
      given.billing_subscription_plan_original_start_date ?? neverModified,
    billing_subscription_plan_last_payment_date:
      given.billing_subscription_plan_last_payment_date ?? neverModified,
    partner_client_status: given.partner_client_status ?? "free_trial",
    ...(Object.fromEntries(
      quotaNames.map((name) => [quotaField(name), given[quotaField(name)] ?? `${defaults[name]}`]),
    ) as Record<QuotaField, string>),
    id: account.id,
    ...createdAt(ctx.now()),
  };
  try {
    await ctx.store.create(collections.customers, partnerId, record);
  } catch (error) {
    // Without its customer record the account is no customer: take it back, e-mail included.
    await ctx.store.delete(collections.accountEmails, account.email, account.email);
    await ctx.store.delete(collections.accounts, account.id, account.id);
    throw error;
  }
  return record;
}

/**
 * P5: changes the given fields of one of the partner's customers; the others stay. A write
 * that loses a race with another one reads the record again and applies the change again.
 * @throws {NotFoundError} when the partner has no customer with that e-mail.
 */
export async function updateCustomer(
  ctx: Context,
  partnerId: string,
  email: string,
  changes: Partial<CustomerFields>,
): Promise<CustomerRecord> {
  const known = await findCustomer(ctx, partnerId, email);
  const saved = await updateRecord<CustomerRecord>(
    ctx.store,
    collections.customers,
    partnerId,
    known.record.id,
    (record) => {
      if (!record) throw customerNotFound();
      return { ...record, ...changes, modified_date_utc: ctx.now().toISOString() };
    },
    { known },
  );
  if (!saved) throw customerNotFound();
  return saved.record;
}

/** P3: the partner's customers, oldest first. */
export function listCustomers(ctx: Context, partnerId: string): Promise<CustomerRecord[]> {
  return queryAll<CustomerRecord>(ctx.store, collections.customers, partnerId, {
    orderBy: { field: "created_date_utc" },
  });
}

/**
 * One of the partner's customers, by e-mail, with its etag.
 * @throws {NotFoundError} when no customer of this partner has that e-mail.
 */
export async function findCustomer(ctx: Context, partnerId: string, email: string) {
  const account = await findAccountByEmail(ctx, email);
  if (!account || partnerIdOf(account.id) !== partnerId) throw customerNotFound();
  const entry = await ctx.store.get<CustomerRecord>(collections.customers, partnerId, account.id);
  if (!entry) throw customerNotFound();
  return entry;
}

/** The customer record of a user id; `null` for local accounts and unknown ids. */
export async function customerOf(ctx: Context, userId: string): Promise<CustomerRecord | null> {
  const partnerId = partnerIdOf(userId);
  if (!partnerId) return null;
  const entry = await ctx.store.get<CustomerRecord>(collections.customers, partnerId, userId);
  return entry?.record ?? null;
}

/** The partner id in a customer's user id (`partner_<partner id>|…`); `null` for others. */
export function partnerIdOf(userId: string): string | null {
  return /^partner_([^|]+)\|/.exec(userId)?.[1] ?? null;
}

/**
 * The paying rule (interface: States; docs/design.md §3): the forms of a partner customer whose
 * status is not `paying_customer` are for that customer alone. Local accounts' forms are
 * open to others as their roles and settings say.
 */
export async function formsOpenToOthers(ctx: Context, ownerUserId: string): Promise<boolean> {
  if (!partnerIdOf(ownerUserId)) return true;
  return (await customerOf(ctx, ownerUserId))?.partner_client_status === "paying_customer";
}

function customerNotFound(): NotFoundError {
  return new NotFoundError("Customer not found");
}
