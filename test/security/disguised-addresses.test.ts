/**
 * The table of disguised addresses (docs/design.md §7): loopback, private and cloud metadata
 * addresses written as another IPv4 notation or wrapped in an IPv6 form (mapped, compatible,
 * translated, NAT64, 6to4, Teredo), and IPv6 space outside global unicast. Each is refused
 * when judged, at W2, at F2 (`destinationsettings`), at the connection-time lookup, by a
 * delivery attempt, and by S2's destination post when stored before F2 checked it; genuinely
 * public addresses, wrapped ones included, are judged public without connecting anywhere.
 *
 * Safety net: `onlyLoopbackConnections()` (loopback-only.ts) is installed before anything
 * else runs. From then on this process cannot open a TCP connection to any address but
 * loopback, whether given as an IP or reached through a name's lookup: such a connection
 * fails before a packet is sent and is recorded, and the last test asserts the record is
 * empty. So a regression of the guard fails these tests instead of sending traffic off the
 * machine. No name other than `localhost` is looked up.
 */
import assert from "node:assert/strict";
import { request as httpRequest, type RequestOptions } from "node:http";
import type { LookupFunction } from "node:net";
import { after, describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, createHttpWebhookSender } from "../../src/index.ts";
import { publicOnlyLookup } from "../../src/webhooks/destination-guard.ts";
import { attemptDelivery } from "../../src/webhooks/http-attempt.ts";
import { isPublicAddress } from "../../src/webhooks/public-addresses.ts";
import { settingsPath } from "../form-fixture.ts";
import { formInput, request } from "../helpers.ts";
import { onlyLoopbackConnections } from "./loopback-only.ts";

// Before any test runs; no module above connects anywhere when it loads.
const safetyNet = onlyLoopbackConnections();

/** A URL host, and what it hides. */
type Disguise = [host: string, hides: string];

const ipv4Notations: Disguise[] = [
  ["127.0.0.1", "loopback"],
  ["127.1", "127.0.0.1, short form"],
  ["2130706433", "127.0.0.1, one decimal number"],
  ["0x7f000001", "127.0.0.1, one hex number"],
  ["0177.0.0.1", "127.0.0.1, octal"],
  ["0", "0.0.0.0"],
  ["169.254.169.254", "cloud metadata"],
  ["0xa9fea9fe", "169.254.169.254, one hex number"],
  ["100.100.100.200", "carrier-grade NAT (a cloud's metadata)"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["192.168.0.1", "private"],
  ["192.0.0.1", "IETF protocol assignments"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "6to4 relay anycast"],
  ["198.18.0.1", "benchmarking"],
  ["198.51.100.1", "documentation"],
  ["203.0.113.1", "documentation"],
  ["224.0.0.1", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
];

const ipv6Forms: Disguise[] = [
  ["[::1]", "loopback"],
  ["[::]", "unspecified"],
  ["[::ffff:127.0.0.1]", "127.0.0.1, IPv4-mapped"],
  ["[0:0:0:0:0:ffff:7f00:1]", "127.0.0.1, IPv4-mapped in hex"],
  ["[::ffff:169.254.169.254]", "metadata, IPv4-mapped"],
  ["[::127.0.0.1]", "127.0.0.1, IPv4-compatible (the URL writes ::7f00:1)"],
  ["[::a9fe:a9fe]", "metadata, IPv4-compatible"],
  ["[::10.0.0.1]", "private, IPv4-compatible"],
  ["[::8.8.8.8]", "IPv4-compatible, deprecated: refused whatever it carries"],
  ["[::ffff:0:127.0.0.1]", "127.0.0.1, IPv4-translated"],
  ["[64:ff9b::127.0.0.1]", "127.0.0.1, NAT64"],
  ["[64:ff9b::a9fe:a9fe]", "metadata, NAT64"],
  ["[64:ff9b::10.0.0.1]", "private, NAT64"],
  ["[64:ff9b:1::a9fe:a9fe]", "metadata, local-use NAT64"],
  ["[64:ff9b:1::808:808]", "local-use NAT64: refused whatever it carries"],
  ["[2002:7f00:1::1]", "127.0.0.1, 6to4"],
  ["[2002:a9fe:a9fe::]", "metadata, 6to4"],
  ["[2002:c0a8:101::1]", "192.168.1.1, 6to4"],
  ["[2001:0:4136:e378:8000:63bf:80ff:fffe]", "127.0.0.1 as Teredo client"],
  ["[2001:0:4136:e378:8000:63bf:5601:5601]", "metadata as Teredo client"],
  ["[2001:0:a00:1::f7f7:f7f7]", "10.0.0.1 as Teredo server"],
  ["[fc00::1]", "unique-local"],
  ["[fd00:ec2::254]", "a cloud's IPv6 metadata, unique-local"],
  ["[fe80::1]", "link-local"],
  ["[fec0::1]", "site-local, deprecated"],
  ["[ff02::1]", "multicast"],
  ["[100::1]", "discard-only"],
  ["[5f00::1]", "SRv6 SIDs"],
  ["[2001:db8::1]", "documentation"],
  ["[3fff::1]", "documentation"],
  ["[2001:2::1]", "benchmarking"],
  ["[2001:10::1]", "ORCHID"],
  ["[2001:20::1]", "ORCHIDv2"],
];

const disguised: Disguise[] = [...ipv4Notations, ...ipv6Forms, ["localhost", "loopback"]];

/** Public addresses, as DNS answers them, wrapped ones included. */
const publicAddresses = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "::ffff:8.8.8.8",
  "64:ff9b::8.8.8.8",
  "2002:808:808::1",
  "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
];

/** The host of `http://<host>/` as the URL parser writes it, without brackets. */
const parsedHost = (host: string) => new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, "");

/** A strict service and a permissive one over one store, alice, and a form of one field. */
async function services() {
  const store = createMemoryStore();
  const service = (allowPrivate: boolean) =>
    createFormService({
      store,
      allowPrivateWebhookDestinations: allowPrivate,
      webhookSender: createHttpWebhookSender({ allowPrivateDestinations: allowPrivate }),
      // The permissive one only writes; it runs no worker that could deliver.
      webhookPollMs: allowPrivate ? 0 : 50,
      actionTimeoutMs: 2000,
      onError: (error) => assert.fail(error instanceof Error ? error : String(error)),
    });
  const strict = service(false);
  const permissive = service(true);
  after(() => Promise.all([strict.close(), permissive.close()]));
  const alice = await strict.admin.createAccount({ email: "alice@example.com" });
  const field = { unique_system_name: "name_1", type: "text", label: "Name" };
  const newForm = async () => {
    const path = "/api/restricted/form";
    const form = await request(strict, "POST", path, { as: alice, body: formInput("F", [field]) });
    assert.equal(form.status, 200);
    return form.body.id as string;
  };
  return { store, strict, permissive, alice, newForm };
}

describe("disguised addresses", () => {
  it("the safety net stops a connection to any address but loopback", async () => {
    const attempt = (options: RequestOptions) =>
      new Promise<string>((resolve) => {
        const call = httpRequest(options);
        call.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? ""));
        call.on("response", () => resolve("response"));
        call.end();
      });
    assert.equal(await attempt({ host: "192.0.2.1", port: 9 }), "ENOTLOOPBACK");
    const lying: LookupFunction = (_name, _options, callback) =>
      (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: "192.0.2.1", family: 4 },
      ]);
    assert.equal(await attempt({ host: "example.test", port: 9, lookup: lying }), "ENOTLOOPBACK");
    assert.deepEqual(safetyNet.refused, ["192.0.2.1", "192.0.2.1"]);
    safetyNet.refused.length = 0;
  });

  it("judges none public, and the public ones public", () => {
    for (const [host, hides] of disguised.filter(([host]) => host !== "localhost")) {
      assert.equal(isPublicAddress(parsedHost(host)), false, `${host} (${hides})`);
    }
    for (const address of publicAddresses) assert.equal(isPublicAddress(address), true, address);
    // As text the URL parser never gives: nothing but a strict IP address is judged.
    for (const text of ["127.1", "0x7f.0.0.1", "::127.0.0.1", "", "example.com"]) {
      assert.equal(isPublicAddress(text), false, text);
    }
  });

  it("W2 refuses each with 400 and the envelope", async () => {
    const { strict, alice, newForm } = await services();
    const hooks = `/api/restricted/form/${await newForm()}/submissionwebhook`;
    for (const [host, hides] of disguised) {
      const body = { webhook_name: "x", webhook_destination_url: `http://${host}/hook` };
      const answer = await request(strict, "POST", hooks, { as: alice, body });
      assert.equal(answer.status, 400, `${host} (${hides})`);
      assert.equal(answer.body.error, "validation_failed");
      assert.match(answer.body.message, /^The webhook destination resolves to .+, which is not/);
      assert.equal(answer.body.issues[0].path, "webhook_destination_url");
    }
    assert.equal((await request(strict, "GET", hooks, { as: alice })).body.length, 0);
  });

  it("F2 refuses each as a destination as W2 does, and stores none", async () => {
    const { store, strict, alice, newForm } = await services();
    const formId = await newForm();
    for (const [host, hides] of disguised) {
      for (const enabled of [true, false]) {
        const body = { enabled, destination_url: `http://${host}/in` };
        const path = settingsPath(formId, "destinationsettings");
        const answer = await request(strict, "POST", path, { as: alice, body });
        assert.equal(answer.status, 400, `${host} (${hides})`);
        assert.equal(answer.body.error, "validation_failed");
        assert.match(answer.body.message, /^The destination resolves to .+, which is not/);
        assert.deepEqual(
          answer.body.issues.map((issue: { path: string }) => issue.path),
          ["destination_url"],
        );
      }
    }
    const form = await store.get<{ id: string; form_configuration: object }>(
      "forms",
      formId,
      formId,
    );
    assert.ok(form && !("destinationsettings" in form.record.form_configuration));
  });

  it("F2 takes a private destination where the service allows them", async () => {
    const { permissive, alice, newForm } = await services();
    const path = settingsPath(await newForm(), "destinationsettings");
    const body = { enabled: true, destination_url: "http://[::127.0.0.1]/in" };
    assert.equal((await request(permissive, "POST", path, { as: alice, body })).status, 200);
  });

  it("the connection-time lookup refuses each", async () => {
    for (const [host, hides] of disguised) {
      const code = await new Promise((resolve) =>
        publicOnlyLookup(parsedHost(host), { all: true }, (error) => resolve(error?.code)),
      );
      assert.equal(code, "EWEBHOOKPRIVATE", `${host} (${hides})`);
    }
  });

  it("a delivery attempt refuses each before a socket opens", async () => {
    for (const [host, hides] of disguised) {
      const message = { url: `http://${host}/hook`, id: "msg_1", payload: "{}", headers: {} };
      const options = {
        timeoutMs: 2000,
        allowPrivate: false,
        signal: new AbortController().signal,
      };
      const outcome = await attemptDelivery(message, options);
      assert.equal(outcome.kind, "refused", `${host} (${hides}): ${JSON.stringify(outcome)}`);
    }
  });

  it("S2's post to a destination stored before F2 checked it is refused", async () => {
    const { strict, permissive, alice, newForm } = await services();
    for (const [host, hides] of disguised) {
      const formId = await newForm();
      const body = { enabled: true, destination_url: `http://${host}/in` };
      const path = settingsPath(formId, "destinationsettings");
      assert.equal((await request(permissive, "POST", path, { as: alice, body })).status, 200);
      const fields = [{ unique_system_name: "name_1", submitted_value: "Ada" }];
      const submitted = await request(strict, "POST", `/api/form/${formId}/submission`, {
        body: { form_fields: fields },
      });
      assert.equal(submitted.status, 200);
      assert.equal(submitted.body.cloud_database_post_expected_but_failed, true, host);
      const log = `/api/restricted/form/${formId}/actions/destination/deliveries`;
      const [delivery] = (await request(strict, "GET", log, { as: alice })).body.results;
      assert.equal(delivery.status, "failed", `${host} (${hides})`);
      assert.equal(delivery.attempts[0].outcome, "refused");
      assert.match(delivery.attempts[0].message, /not a public address/);
    }
  });

  it("no connection left for an address but loopback", () => {
    assert.deepEqual(safetyNet.refused, []);
  });
});
