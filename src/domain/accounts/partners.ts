import { newId } from "../../kernel/ids.ts";
import { createdAt, type Timestamps } from "../../kernel/timestamps.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { hashSecret, newSecret } from "./secrets.ts";

/** A partner platform; only the hash of its secret is kept. Partition and id: the partner id. */
export interface PartnerRecord extends Timestamps {
  id: string;
  name: string;
  secret_hash: string;
}

/** A partner's credentials as handed out once, with the secret in the clear. */
export interface IssuedPartner {
  partner_id: string;
  partner_secret: string;
  /** What P2 callers pass as `partnerAccountId`: the partner's id. */
  partner_account_id: string;
}

/** Registers a partner and issues its credentials. */
export async function createPartner(ctx: Context, name: string): Promise<IssuedPartner> {
  const id = newId();
  const partner_secret = newSecret();
  await ctx.store.create<PartnerRecord>(collections.partners, id, {
    id,
    name,
    secret_hash: hashSecret(partner_secret),
    ...createdAt(ctx.now()),
  });
  return { partner_id: id, partner_secret, partner_account_id: id };
}

/** A partner by its id, or `null` when there is none. */
export async function findPartner(ctx: Context, partnerId: string): Promise<PartnerRecord | null> {
  return (
    (await ctx.store.get<PartnerRecord>(collections.partners, partnerId, partnerId))?.record ?? null
  );
}

/** The identity provider name of a partner's customers: `partner_<partner id>`. */
export function partnerProvider(partnerId: string): string {
  return `partner_${partnerId}`;
}
