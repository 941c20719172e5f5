import type { AdminApi } from "../admin.ts";
import { hashSecret, secretMatches } from "../auth/secrets.ts";
import { NotFoundError, UnauthorizedError } from "../errors.ts";
import { readJson } from "../http/body.ts";
import type { RouteRequest, ServiceRouter } from "../http/route-request.ts";

/**
 * The admin API over HTTP (**extension**), behind the `AdminSecret` header. Without a
 * configured secret these routes do not exist (404).
 */
export function adminRoutes(
  router: ServiceRouter,
  admin: AdminApi,
  adminSecret: string | undefined,
) {
  const secretHash = adminSecret ? hashSecret(adminSecret) : undefined;
  const guard = (request: RouteRequest) => {
    if (!secretHash) throw new NotFoundError();
    const given = request.headers.get("AdminSecret");
    if (!given || !secretMatches(given, secretHash))
      throw new UnauthorizedError("A valid AdminSecret is required");
  };
  router
    .all("/api/admin/*", guard)
    .post("/api/admin/accounts", async (request, ctx) =>
      admin.createAccount((await readJson(request, ctx.limits.jsonBodyBytes)) as { email: string }),
    )
    .post("/api/admin/accounts/:userId/tokens", (request) => admin.createToken(userIdOf(request)))
    .post("/api/admin/partners", async (request, ctx) =>
      admin.createPartner((await readJson(request, ctx.limits.jsonBodyBytes)) as { name: string }),
    );
}

function userIdOf(request: RouteRequest): string {
  try {
    return decodeURIComponent(request.params.userId ?? "");
  } catch {
    throw new NotFoundError("Account not found");
  }
}
