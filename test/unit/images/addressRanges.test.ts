import {describe, expect, it} from "vitest";
import {nonPublicRange} from "../../../src/images/addressRanges.js";

/** The host an image URL names, as the URL parser hands it to the fetcher. */
const hostOf = (url: string) => new URL(url).hostname;

describe("nonPublicRange", () => {
    it.each([
        ["0.0.0.0", "unspecified"], ["0.1.2.3", "unspecified"],
        ["10.0.0.1", "private address (10.0.0.0/8)"], ["10.255.255.255", "private"],
        ["100.64.0.1", "carrier-grade NAT"], ["100.127.255.255", "carrier-grade NAT"], ["100.100.100.200", "carrier-grade NAT"],
        ["127.0.0.1", "loopback"], ["127.1.2.3", "loopback"], ["127.255.255.255", "loopback"],
        ["169.254.169.254", "link-local"], ["169.254.0.1", "link-local"],
        ["172.16.0.1", "private address (172.16.0.0/12)"], ["172.31.255.255", "private"],
        ["192.168.1.1", "private address (192.168.0.0/16)"], ["192.0.0.8", "reserved"], ["192.0.2.1", "documentation"],
        ["198.18.0.1", "benchmarking"], ["198.19.255.255", "benchmarking"],
        ["224.0.0.1", "multicast"], ["239.255.255.250", "multicast"],
        ["240.0.0.1", "reserved"], ["255.255.255.255", "broadcast"]
    ])("refuses IPv4 %s (%s)", (address, kind) => {
        expect(nonPublicRange(address)).toContain(kind);
    });

    it.each(["1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
        "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0", "198.17.255.255",
        "198.20.0.0", "223.255.255.255"
    ])("lets public IPv4 %s through", (address) => {
        expect(nonPublicRange(address)).toBeNull();
    });

    it.each([
        ["::", "unspecified"], ["::1", "loopback address (::1)"], ["0:0:0:0:0:0:0:1", "loopback"],
        ["fd00::1", "unique local"], ["fc00::", "unique local"], ["fdff:ffff::1", "unique local"], ["fd00:ec2::254", "unique local"],
        ["fe80::1", "link-local"], ["fe80::1%eth0", "link-local"], ["febf::1", "link-local"], ["fec0::1", "site-local"],
        ["ff02::1", "multicast"], ["2001:db8::1", "documentation"], ["2001::1", "Teredo"], ["100::1", "discard"],
        ["::127.0.0.1", "IPv4-compatible"], ["::a00:1", "IPv4-compatible"], ["64:ff9b:1::1", "NAT64"]
    ])("refuses IPv6 %s (%s)", (address, kind) => {
        expect(nonPublicRange(address)).toContain(kind);
    });

    it.each(["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:82b::200e", "fbff::1", "fe00::1"])("lets public IPv6 %s through", (address) => {
        expect(nonPublicRange(address)).toBeNull();
    });

    it("judges an IPv6 address that carries an IPv4 one by that IPv4 address", () => {
        expect(nonPublicRange("::ffff:127.0.0.1")).toBe("a loopback address (127.0.0.0/8), written in IPv4-mapped IPv6 form");
        expect(nonPublicRange("::ffff:7f00:1")).toContain("loopback");
        expect(nonPublicRange("::FFFF:169.254.169.254")).toContain("link-local");
        expect(nonPublicRange("::ffff:0:a00:1")).toContain("IPv4-translated");
        expect(nonPublicRange("64:ff9b::192.168.0.1")).toContain("NAT64");
        expect(nonPublicRange("2002:7f00:1::1")).toContain("6to4");
        expect(nonPublicRange("2002:c0a8:0101::")).toContain("192.168.0.0/16");
        expect(nonPublicRange("::ffff:8.8.8.8")).toBeNull();
        expect(nonPublicRange("64:ff9b::808:808")).toBeNull();
        expect(nonPublicRange("2002:808:808::1")).toBeNull();
    });

    it("takes hosts as URLs write them: bracketed IPv6, and the IPv4 spellings the URL parser normalises", () => {
        expect(hostOf("http://[::ffff:127.0.0.1]/")).toBe("[::ffff:7f00:1]");
        expect(nonPublicRange(hostOf("http://[::ffff:127.0.0.1]/"))).toContain("loopback");
        expect(nonPublicRange(hostOf("http://[::1]:8080/"))).toContain("loopback");
        // Decimal, hexadecimal, octal and shortened IPv4: WHATWG URL turns each into a dotted quad.
        for (const url of ["http://2130706433/", "http://0x7f000001/", "http://0x7f.1/", "http://0177.0.0.1/", "http://127.1/", "http://017700000001/"]) {
            expect(hostOf(url), url).toBe("127.0.0.1");
            expect(nonPublicRange(hostOf(url)), url).toContain("loopback");
        }
        expect(hostOf("http://0/")).toBe("0.0.0.0");
        expect(nonPublicRange(hostOf("http://0/"))).toContain("unspecified");
        expect(nonPublicRange(hostOf("http://0xa9fea9fe/"))).toContain("link-local");
    });

    it("names anything that is not an IP address (a host name: resolve it first)", () => {
        expect(nonPublicRange("example.com")).toMatch(/^not an IP address/);
        expect(nonPublicRange("localhost")).toMatch(/^not an IP address/);
        expect(nonPublicRange("127.0.0.1.nip.io")).toMatch(/^not an IP address/);
    });
});
