/** The audit trail's query (extension, docs/design.md §25). */
import { pagingQuery } from "./common.ts";

/** `GET …/audit`: a page size and the previous page's `continuation_token`, as S5 takes them. */
export const auditQuery = pagingQuery(100);
