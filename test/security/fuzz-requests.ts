/**
 * One fuzzed request: a route of the OpenAPI document (or a path none serves), its ids
 * real or mangled, query values of every kind, credentials good, stale or garbage, a
 * content type that fits or lies, and a body from `fuzz-bodies.ts`.
 */
import { settingsSections } from "../../src/domain/settings/index.ts";
import { jsonBody, multipartBody } from "./fuzz-bodies.ts";
import { anyId, anyString, encodeText, randomGuid } from "./fuzz-values.ts";
import { adminSecret, type Operation, sampleBody, type World } from "./fuzz-world.ts";
import type { Random } from "./prng.ts";

/** A request to send, kept plain so that a failure can print it. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body?: string | Uint8Array<ArrayBuffer>;
}

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND"];
const latin1 = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("")}éÿ\u00a0`;

/** Builds one fuzzed request against `world`. */
export function fuzzRequest(random: Random, world: World): FuzzRequest {
  const operation = random.chance(0.97) ? random.pick(world.operations) : strayOperation(random);
  const method = random.chance(0.88) ? operation.method : random.pick(methods);
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    anyId(random, world.ids[name] ?? randomGuid(random)),
  );
  const headers: [string, string][] = random.chance(0.65)
    ? fittingCredentials(random, world, operation.path)
    : credentials(random, world);
  const asCustomer = headers.some(
    ([name, value]) => name === "Authorization" && value.endsWith(world.jwt),
  );
  const query = queryOf(random, operation, world, asCustomer);
  if (random.chance(0.05)) headers.push(["X-Forwarded-For", headerText(random)]);
  if (random.chance(0.05)) headers.push(["X-Request-Id", headerText(random)]);
  const request: FuzzRequest = { method, url: `http://localhost${path}${query}`, headers };
  if (method === "GET" || method === "HEAD" || random.chance(0.04)) return request;
  if (operation.body === "multipart/form-data" || random.chance(0.03)) {
    const { body, contentType } = multipartBody(random, "cv_4");
    request.body = body;
    if (contentType && random.chance(0.95)) headers.push(["Content-Type", contentType]);
    return request;
  }
  request.body = jsonBody(
    random,
    sampleBody(operation, world, !query.includes("updateSettingsOnly")),
  );
  headers.push(["Content-Type", contentTypeOf(random)]);
  return request;
}

function contentTypeOf(random: Random): string {
  return random.chance(0.75)
    ? "application/json"
    : random.pick([
        "application/json; charset=utf-8",
        "application/json; charset=utf-16",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/xml",
        "application/json;;;",
        "",
        headerText(random),
      ]);
}

function queryOf(random: Random, operation: Operation, world: World, asCustomer: boolean): string {
  const pairs: string[] = [];
  if (asCustomer && random.chance(0.9)) pairs.push(`partnerAccountId=${world.partner.partner_id}`);
  for (const name of operation.query) {
    if (random.chance(0.4)) continue;
    pairs.push(`${name}=${queryValue(random, name)}`);
    if (random.chance(0.05)) pairs.push(`${name}=${queryValue(random, name)}`);
  }
  if (random.chance(0.15))
    pairs.push(`partnerAccountId=${random.pick([world.partner.partner_id, "x", "%ff"])}`);
  if (random.chance(0.1))
    pairs.push(`${encodeText(anyString(random).slice(0, 50))}=${queryValue(random, "")}`);
  return pairs.length ? `?${pairs.join("&")}` : random.pick(["", "", "?", "?&", "?=&=", "?%"]);
}

/** Values that make sense for a parameter, so that the calls get past validation too. */
const fittingQueryValues: Record<string, string[]> = {
  includeFormDefinition: ["true", "false", "1"],
  dateFrom: ["0", "1763950000000"],
  dateTo: ["1893456000000", "0"],
  batchSize: ["1", "10", "1000", "1001"],
  search: ["ada", "M", "36"],
  collaborator_email: ["bob@example.com", "zed@example.com", "owner@example.com"],
  has_account_management: ["0", "1"],
  has_form_editor: ["0", "1"],
  has_form_submission: ["0", "1"],
  has_offline_form_submission: ["0", "1"],
  has_reporting_full: ["0", "1"],
  for_deletion: ["true", "1", "0"],
};

function queryValue(random: Random, name: string): string {
  if (name === "settingsSection" && random.chance(0.7)) {
    return random.chance(0.03) ? "generalsettingsdelete" : random.pick(settingsSections).name;
  }
  if (name === "updateSettingsOnly" && random.chance(0.7)) return "1";
  const fitting = fittingQueryValues[name];
  if (fitting && random.chance(0.6)) return random.pick(fitting);
  return random.pick([
    "1",
    "0",
    "true",
    "yes",
    "-1",
    "1e309",
    "NaN",
    "1763950000000",
    "99999999999999999999",
    "2026-11-24",
    "%ff",
    "%",
    "bob%40example.com",
    encodeText(anyString(random)),
  ]);
}

/** Real credentials of the kind the route takes. */
function fittingCredentials(random: Random, world: World, path: string): [string, string][] {
  if (path.startsWith("/api/admin")) return [["AdminSecret", adminSecret]];
  if (path.startsWith("/api/restricted/partner")) {
    const { partner_id, partner_secret } = world.partner;
    return [
      ["PartnerId", partner_id],
      ["PartnerSecret", partner_secret],
      ["PartnerCustomerEmail", random.pick([world.customerEmail, "nobody@example.com"])],
    ];
  }
  if (random.chance(0.2)) return [["Authorization", `Bearer ${world.jwt}`]];
  return [
    ["TokenId", world.owner.token_id],
    ["TokenSecret", world.owner.token_secret],
  ];
}

/** Credentials: none, real ones, another account's, or garbage in every credential header. */
function credentials(random: Random, world: World): [string, string][] {
  const { owner, other, partner, jwt } = world;
  switch (random.int(0, 13)) {
    case 0:
    case 1:
    case 2:
    case 12:
    case 13:
      return [
        ["TokenId", owner.token_id],
        ["TokenSecret", owner.token_secret],
      ];
    case 3:
      return [
        ["TokenId", other.token_id],
        ["TokenSecret", other.token_secret],
      ];
    case 4:
      return [
        ["TokenId", random.chance(0.5) ? owner.token_id : headerText(random)],
        ["TokenSecret", headerText(random)],
      ];
    case 5:
      return [["Authorization", `Bearer ${jwt}`]];
    case 6:
      return [
        [
          "Authorization",
          random.pick([
            "Bearer",
            "Bearer ",
            `Bearer ${forgedJwt(random)}`,
            `Basic ${headerText(random)}`,
            headerText(random),
          ]),
        ],
      ];
    case 7:
      return [
        ["PartnerId", partner.partner_id],
        ["PartnerSecret", partner.partner_secret],
        ["PartnerCustomerEmail", random.pick([world.customerEmail, headerText(random)])],
      ];
    case 8:
      return [
        ["PartnerId", random.pick([partner.partner_id, headerText(random)])],
        ["PartnerSecret", headerText(random)],
      ];
    case 9:
      return [["AdminSecret", random.chance(0.6) ? adminSecret : headerText(random)]];
    default:
      return [];
  }
}

function forgedJwt(random: Random): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const header = random.pick([
    { alg: "none", typ: "JWT" },
    { alg: "HS256" },
    { alg: "RS256" },
    "x",
  ]);
  const payload = random.pick([{ sub: "x", exp: 1 }, { exp: 99999999999 }, [], null]);
  return `${part(header)}.${part(payload)}.${random.text(random.int(0, 43), "abcdefABCDEF0123456789-_")}`;
}

/** A header value: printable ASCII and Latin-1, the characters `Headers` accepts. */
function headerText(random: Random): string {
  return random.chance(0.03) ? "h".repeat(20_000) : random.text(random.int(0, 60), latin1).trim();
}

/** A path no route of the document names. */
function strayOperation(random: Random): Operation {
  const path = random.pick([
    "/",
    "//",
    "/api",
    "/api/",
    "/api/form",
    "/api/restricted/form/{formId}/submission/{submissionId}/extra",
    "/api/restricted/%2e%2e/admin/accounts",
    "/storage/{formId}/{attachmentId}",
    "/storage/..%2f..%2fetc/passwd",
    "/f/",
    "/%ff",
    `/${"a/".repeat(200)}`,
  ]);
  return { method: random.pick(methods), path, query: ["sv", "se", "sr", "sp", "sig"] };
}
