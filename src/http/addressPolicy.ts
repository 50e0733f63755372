/**
 * Which network addresses the server may contact when a URL it was handed (a Client ID Metadata
 * Document, a chat's remote file) steers an outbound request: public unicast only. Loopback,
 * private, link-local, unique-local and every other special-use range (RFC 6890 and its IANA
 * registries) are refused, so a URL cannot make this server reach its own network (SSRF); an
 * explicit allow list exempts chosen addresses (tests, a known internal host).
 */
import { BlockList, isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * `::/96`, the deprecated IPv4-compatible addresses (RFC 4291 §2.5.5.1): ipaddr.js names only
 * `::` and `::1` in it, but `::10.0.0.1` may reach 10.0.0.1 on a stack that still maps them.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

/**
 * The address as WHATWG URL writes it (IPv6 compressed, hex only, no zone). ipaddr.js reads
 * `::8.8.8.8` as the IPv4-mapped `::ffff:8.8.8.8`; in hex (`::808:808`) it is IPv4-compatible.
 */
function canonical(address: string): string {
  const bare = address.replace(/%.*$/, "");
  if (isIP(bare) !== 6) return bare;
  return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
}

/**
 * Whether `address` is anything but public unicast, by ipaddr.js's table of special-use ranges
 * (its `range()`: private, loopback, link-local, CGNAT, documentation, benchmarking, multicast,
 * reserved, NAT64, 6to4, Teredo, ORCHID, segment routing `5f00::/16`, documentation `3fff::/20`…),
 * kept with the IANA registries upstream. An IPv4-mapped address (`::ffff:10.0.0.1`) is judged
 * as the IPv4 address it carries; an address it cannot parse is refused.
 */
function specialUse(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(canonical(address));
  } catch {
    return true;
  }
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return specialUse(v6.toIPv4Address().toString());
    if (v6.match(IPV4_COMPATIBLE)) return true;
  }
  return parsed.range() !== "unicast";
}

const familyOf = (address: string): "ipv4" | "ipv6" => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** Decides, per resolved address, whether the server may connect to it. */
export interface AddressPolicy {
  /** True when `address` (an IP literal) must not be contacted. */
  refuses(address: string): boolean;
}

/**
 * The policy for `allow`: IP addresses or CIDR ranges ("127.0.0.1", "10.1.0.0/16", "::1")
 * contacted even though they are special-use. Throws on an entry that is neither.
 */
export function addressPolicy(allow: readonly string[] = []): AddressPolicy {
  const allowed = new BlockList();
  for (const entry of allow) {
    const [address, prefix] = entry.split("/");
    const version = isIP(address);
    if (version === 0) throw new Error(`addressPolicy: "${entry}" is not an IP address or range.`);
    const type = version === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) {
      allowed.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!Number.isInteger(bits) || bits < 0 || bits > (version === 6 ? 128 : 32)) {
      throw new Error(`addressPolicy: "${entry}" has an invalid prefix length.`);
    }
    allowed.addSubnet(address, bits, type);
  }
  return {
    refuses(address) {
      if (isIP(address) === 0) return true;
      const type = familyOf(address);
      return !allowed.check(address, type) && specialUse(address);
    },
  };
}
