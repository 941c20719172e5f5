import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Range<T> = [T, number];

/**
 * IPv4 space that is no public destination: every block of the IANA IPv4 Special-Purpose
 * Address Registry a webhook has no business calling, and multicast.
 */
const ipv4Special = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local
  "172.16.0.0/12",
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation
  "192.88.99.0/24", // 6to4 relay anycast, deprecated
  "192.168.0.0/16",
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation
  "203.0.113.0/24", // documentation
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, with the broadcast address 255.255.255.255
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

/** IPv6 global unicast space; everything outside it (loopback, ULA, link-local…) is refused. */
const ipv6GlobalUnicast = ipaddr.IPv6.parseCIDR("2000::/3");

/**
 * IPv6 space inside 2000::/3 that is no public destination: the IETF protocol assignments
 * (2001::/23: benchmarking, ORCHID…; Teredo, inside it, is unwrapped before), and the two
 * documentation blocks.
 */
const ipv6Special = ["2001::/23", "2001:db8::/32", "3fff::/20"].map((cidr) =>
  ipaddr.IPv6.parseCIDR(cidr),
);

/** The IPv4 address made of two 16-bit words of an IPv6 address. */
function ipv4Of(high = 0, low = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv6 forms whose packets end up at an IPv4 address they carry, and the addresses they
 * carry: IPv4-mapped, well-known NAT64 (RFC 6052), 6to4 (RFC 3056: bits 16–48) and Teredo
 * (RFC 4380: the server in bits 32–64, the client in the last 32 bits, inverted). The
 * IPv4-compatible form (::/96) and local-use NAT64 (64:ff9b:1::/48, whose IPv4 may sit in
 * several places) are not here: both lie outside 2000::/3 and are refused whatever they carry.
 */
const carriers: { range: Range<ipaddr.IPv6>; carried(parts: number[]): ipaddr.IPv4[] }[] = [
  { range: ipaddr.IPv6.parseCIDR("::ffff:0:0/96"), carried: (p) => [ipv4Of(p[6], p[7])] },
  { range: ipaddr.IPv6.parseCIDR("64:ff9b::/96"), carried: (p) => [ipv4Of(p[6], p[7])] },
  { range: ipaddr.IPv6.parseCIDR("2002::/16"), carried: (p) => [ipv4Of(p[1], p[2])] },
  {
    range: ipaddr.IPv6.parseCIDR("2001::/32"),
    carried: (p) => [ipv4Of(p[2], p[3]), ipv4Of(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff)],
  },
];

/** Whether an IPv4 address lies outside every special-purpose range. */
function isGlobalIPv4(address: ipaddr.IPv4): boolean {
  return !ipv4Special.some((range) => address.match(range));
}

/**
 * Whether an IPv6 address is global unicast: one that carries IPv4 addresses when every one
 * it carries is, any other when it lies in 2000::/3 outside the special ranges.
 */
function isGlobalIPv6(address: ipaddr.IPv6): boolean {
  const carrier = carriers.find(({ range }) => address.match(range));
  if (carrier) return carrier.carried(address.parts).every(isGlobalIPv4);
  if (!address.match(ipv6GlobalUnicast)) return false;
  return !ipv6Special.some((range) => address.match(range));
}

/**
 * Whether an address (as DNS answers it or a URL's host writes it) is an ordinary public one,
 * in global unicast space (docs/design.md §7). Loopback, private, link-local (which holds the
 * cloud metadata address 169.254.169.254), unique-local, carrier-grade NAT (where some clouds
 * put theirs), documentation, benchmarking, multicast, reserved and unspecified addresses are
 * not, nor any IPv6 form that carries one of them (mapped, NAT64, 6to4, Teredo), nor the
 * deprecated IPv4-compatible form (`[::127.0.0.1]`, which stacks route as IPv6), nor anything
 * that is not strictly an IP address (`127.1`).
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  try {
    return family === 4
      ? isGlobalIPv4(ipaddr.IPv4.parse(address))
      : isGlobalIPv6(ipaddr.IPv6.parse(address));
  } catch {
    return false;
  }
}
