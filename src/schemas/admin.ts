import * as v from "valibot";
import { emailSchema, nameSchema } from "./common.ts";

/** Body of `POST /api/admin/accounts`. */
export const createAccountBody = v.object({ email: emailSchema });

/** Body of `POST /api/admin/partners`. */
export const createPartnerBody = v.object({ name: nameSchema });
