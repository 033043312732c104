import {isIPv4, isIPv6} from "node:net";

/**
 * Which IP addresses an image URL may reach. A server that fetches URLs for its clients must not
 * become their way into the network it sits in (SSRF): its own loopback, the LAN, a cloud's
 * metadata service (169.254.169.254, fd00:ec2::254), a carrier's NAT. Only public unicast
 * addresses pass; the ranges are IANA's special-purpose registries (RFC 6890 and its updates).
 * IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
 */
type Range = {first: bigint, last: bigint, kind: string};

const ipv4Ranges: Range[] = [
    v4("0.0.0.0", 8, "an unspecified address (0.0.0.0/8 reaches this host)"),
    v4("10.0.0.0", 8, "a private address (10.0.0.0/8)"),
    v4("100.64.0.0", 10, "a carrier-grade NAT address (100.64.0.0/10)"),
    v4("127.0.0.0", 8, "a loopback address (127.0.0.0/8)"),
    v4("169.254.0.0", 16, "a link-local address (169.254.0.0/16, where cloud metadata services answer)"),
    v4("172.16.0.0", 12, "a private address (172.16.0.0/12)"),
    v4("192.0.0.0", 24, "a reserved address (192.0.0.0/24)"),
    v4("192.0.2.0", 24, "a documentation address (192.0.2.0/24)"),
    v4("192.88.99.0", 24, "a reserved address (192.88.99.0/24, 6to4 relay)"),
    v4("192.168.0.0", 16, "a private address (192.168.0.0/16)"),
    v4("198.18.0.0", 15, "a reserved address (198.18.0.0/15, benchmarking)"),
    v4("198.51.100.0", 24, "a documentation address (198.51.100.0/24)"),
    v4("203.0.113.0", 24, "a documentation address (203.0.113.0/24)"),
    v4("224.0.0.0", 4, "a multicast address (224.0.0.0/4)"),
    v4("240.0.0.0", 4, "a reserved or broadcast address (240.0.0.0/4)")
];

const ipv6Ranges: Range[] = [
    v6("::", 128, "an unspecified address (::)"),
    v6("::1", 128, "a loopback address (::1)"),
    v6("::", 96, "a deprecated IPv4-compatible address (::/96)"),
    v6("64:ff9b:1::", 48, "a private NAT64 address (64:ff9b:1::/48)"),
    v6("100::", 64, "a discard address (100::/64)"),
    v6("2001::", 23, "a reserved address (2001::/23, Teredo and other protocol assignments)"),
    v6("2001:db8::", 32, "a documentation address (2001:db8::/32)"),
    v6("fc00::", 7, "a private address (fc00::/7, unique local)"),
    v6("fe80::", 10, "a link-local address (fe80::/10)"),
    v6("fec0::", 10, "a private address (fec0::/10, site-local)"),
    v6("ff00::", 8, "a multicast address (ff00::/8)")
];

/** IPv6 prefixes whose addresses carry an IPv4 address: the prefix, its length, and where the IPv4 address sits (bits from the right). */
const embeddingIpv4 = [
    {prefix: parseIpv6("::ffff:0:0"), length: 96, shift: 0n, name: "IPv4-mapped"},
    {prefix: parseIpv6("::ffff:0:0:0"), length: 96, shift: 0n, name: "IPv4-translated"},
    {prefix: parseIpv6("64:ff9b::"), length: 96, shift: 0n, name: "NAT64"},
    {prefix: parseIpv6("2002::"), length: 16, shift: 80n, name: "6to4"}
];

/**
 * Why an address is off limits (e.g. "a loopback address (127.0.0.0/8)"), or null for a public one.
 * Anything that is not an IP address at all (a host name) is off limits too: callers resolve first.
 */
export function nonPublicRange(address: string): string | null {
    const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
    if (isIPv4(bare))
        return rangeOf(parseIpv4(bare), ipv4Ranges);
    if (!isIPv6(bare))
        return `not an IP address ('${address}')`;
    const value = parseIpv6(bare);
    for (const {prefix, length, shift, name} of embeddingIpv4) {
        if (value >> (128n - BigInt(length)) !== prefix >> (128n - BigInt(length)))
            continue;
        const embedded = rangeOf((value >> shift) & 0xffffffffn, ipv4Ranges);
        return embedded == null ? null : `${embedded}, written in ${name} IPv6 form`;
    }
    return rangeOf(value, ipv6Ranges);
}

function rangeOf(value: bigint, ranges: readonly Range[]): string | null {
    return ranges.find(({first, last}) => value >= first && value <= last)?.kind ?? null;
}

function v4(address: string, prefixLength: number, kind: string): Range {
    return block(parseIpv4(address), 32, prefixLength, kind);
}

function v6(address: string, prefixLength: number, kind: string): Range {
    return block(parseIpv6(address), 128, prefixLength, kind);
}

function block(first: bigint, bits: number, prefixLength: number, kind: string): Range {
    const hostBits = BigInt(bits - prefixLength);
    return {first, last: first | ((1n << hostBits) - 1n), kind};
}

/** A dotted-quad IPv4 address (as net.isIPv4 accepts it) → its 32-bit value. */
function parseIpv4(address: string): bigint {
    return address.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address (as net.isIPv6 accepts it: `::` shorthand, a trailing dotted quad) → its 128-bit value. */
function parseIpv6(address: string): bigint {
    let text = address.toLowerCase();
    const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    if (dotted != null) {
        const v4 = Number(parseIpv4(dotted[1]!));
        text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
    }
    const [head, tail] = text.includes("::") ? text.split("::") as [string, string] : [text, null];
    const headGroups = head === "" ? [] : head.split(":");
    const tailGroups = tail == null || tail === "" ? [] : tail.split(":");
    const groups = tail == null ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
    return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}
