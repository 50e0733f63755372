/**
 * Which network addresses the server may contact when a URL it was handed (a Client ID Metadata
 * Document, a chat's remote file) steers an outbound request: public unicast only. Loopback,
 * private, link-local, unique-local and every other special-use range (RFC 6890 and its IANA
 * registries) are refused, so a URL cannot make this server reach its own network (SSRF); an
 * explicit allow list exempts chosen addresses (tests, a known internal host).
 */
import { BlockList, isIP } from "node:net";

/** IPv4 special-use ranges: nothing in them is a public web host. */
const SPECIAL_USE_V4: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
];

/**
 * IPv6 special-use ranges, with the ones that embed an IPv4 address (NAT64, 6to4). IPv4-mapped
 * addresses (`::ffff:10.0.0.1`) need no entry: BlockList judges them by the IPv4 ranges.
 */
const SPECIAL_USE_V6: Array<[string, number]> = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo among them)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const SPECIAL_USE = new BlockList();
for (const [network, prefix] of SPECIAL_USE_V4) SPECIAL_USE.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of SPECIAL_USE_V6) SPECIAL_USE.addSubnet(network, prefix, "ipv6");

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
      return !allowed.check(address, type) && SPECIAL_USE.check(address, type);
    },
  };
}
