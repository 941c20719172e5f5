import type { AdminApi } from "../admin.ts";
import { adminSecretCheck } from "../auth/admin-secret.ts";
import { readJson } from "../http/body.ts";
import { NotFoundError } from "../kernel/errors.ts";
import { envelope, guidParam, type RouteRequest, type ServiceRouter } from "./route-request.ts";

/**
 * The admin API over HTTP (**extension**), behind the `AdminSecret` header. Without a
 * configured secret these routes do not exist (404).
 */
export function adminRoutes(
  router: ServiceRouter,
  admin: AdminApi,
  adminSecret: string | undefined,
) {
  const checkSecret = adminSecretCheck(adminSecret);
  const guard = (request: RouteRequest) => checkSecret(request.headers);
  router
    .all("/api/admin/*", guard)
    .get("/api/admin/accounts", () => admin.listAccounts())
    .post("/api/admin/accounts", async (request, ctx) =>
      admin.createAccount((await readJson(request, ctx.limits.jsonBodyBytes)) as { email: string }),
    )
    .get("/api/admin/accounts/:userId/tokens", (request) =>
      admin.listTokens(request.params.userId ?? ""),
    )
    .post("/api/admin/accounts/:userId/tokens", (request) =>
      admin.createToken(request.params.userId ?? ""),
    )
    .delete("/api/admin/tokens/:tokenId", async (request) => {
      const tokenId = guidParam(request, "tokenId");
      if (!(await admin.revokeToken(tokenId))) throw new NotFoundError("Token not found");
      return envelope(tokenId, "Token revoked");
    })
    .post("/api/admin/partners", async (request, ctx) =>
      admin.createPartner((await readJson(request, ctx.limits.jsonBodyBytes)) as { name: string }),
    );
}
