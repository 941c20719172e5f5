/**
 * The audit trail (docs/design.md §25): entries appended by the reads and changes of a
 * form's submissions and of who may see them, listed newest first for the form's account
 * managers, and swept once past their retention. On the floor above records: every concept
 * that records an entry imports it.
 */
export {
  type AuditAction,
  type AuditEntry,
  type AuditSource,
  appendAudit,
  auditOp,
  systemSource,
} from "./audit-entries.ts";
export { type AuditPageOptions, listAuditEntries } from "./audit-listing.ts";
export { sweepAuditEntries } from "./audit-sweep.ts";
