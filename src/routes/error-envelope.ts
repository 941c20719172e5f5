import { type ErrorCode, ServiceError, type ValidationIssue } from "../kernel/errors.ts";

/** The failure envelope's JSON body. */
export interface ErrorEnvelope {
  id: "";
  message: string;
  action_successful: false;
  error: ErrorCode;
  issues?: ValidationIssue[];
}

/** Renders an error as the failure envelope; anything unexpected becomes a bare 500. */
export function errorEnvelope(error: unknown): { status: number; body: ErrorEnvelope } {
  const known =
    error instanceof ServiceError
      ? error
      : new ServiceError("internal_error", "Something went wrong on our side");
  const body: ErrorEnvelope = {
    id: "",
    message: known.message,
    action_successful: false,
    error: known.code,
  };
  if (known.issues) body.issues = known.issues;
  return { status: known.status, body };
}
