import { adminOperations } from "./admin.ts";
import { auditOperations } from "./audit.ts";
import { challengeOperation } from "./challenges.ts";
import { datalistOperations } from "./datalists.ts";
import { formUserOperations } from "./form-users.ts";
import { formOperations } from "./forms.ts";
import { hostedPageOperation } from "./hosted-page.ts";
import { openApiOperation } from "./openapi.ts";
import type { RouteOperation } from "./operation.ts";
import { partnerOperations } from "./partners.ts";
import { paymentOperations } from "./payments.ts";
import { respondentOperations } from "./respondents.ts";
import { submissionOperations } from "./submissions.ts";
import { webhookOperations } from "./webhooks.ts";

/**
 * Every operation the router serves, by interface section, in the order the router tries
 * them (after the admin API's guard): S2's section first, as S2 is the hot path (no pattern
 * of one section matches a path of another, so the order decides nothing else). The OpenAPI
 * document lists the same operations, by tag.
 */
export const operations: readonly RouteOperation[] = [
  ...submissionOperations,
  challengeOperation,
  ...formOperations,
  ...formUserOperations,
  ...datalistOperations,
  ...partnerOperations,
  ...webhookOperations,
  ...auditOperations,
  ...respondentOperations,
  ...paymentOperations,
  ...adminOperations,
  hostedPageOperation,
  openApiOperation,
];
