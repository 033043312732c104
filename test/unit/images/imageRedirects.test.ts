import {afterAll, beforeAll, describe, expect, it, vi} from "vitest";
import {BadRequestError} from "../../../src/errors.js";
import {loadImage} from "../../../src/images/imageInput.js";
import type {ImageLimits} from "../../../src/images/imageLimits.js";
import {encodePng, gradient} from "../../fixtures/images.js";
import {startImageServer, type ImageServer} from "../support/imageServer.js";

/**
 * The fetcher's address checks on the paths a local test server cannot reach otherwise: here
 * 127.0.0.1 (the test server) counts as public, every other address as the real rules say, and
 * two made-up names resolve to chosen addresses.
 */
vi.mock("../../../src/images/addressRanges.js", async (importOriginal) => {
    const real = await importOriginal<typeof import("../../../src/images/addressRanges.js")>();
    return {nonPublicRange: (address: string) => address === "127.0.0.1" ? null : real.nonPublicRange(address)};
});
vi.mock("node:dns", async (importOriginal) => {
    const real = await importOriginal<typeof import("node:dns")>();
    const names: Record<string, Array<{address: string, family: number}>> = {
        "public.test": [{address: "127.0.0.1", family: 4}],
        // One public answer beside a private one: refused, whichever the socket would try first.
        "rebind.test": [{address: "127.0.0.1", family: 4}, {address: "10.0.0.7", family: 4}]
    };
    const lookup = (host: string, options: object, callback: (...args: unknown[]) => void) =>
        host === "missing.test" ? callback(Object.assign(new Error("getaddrinfo ENOTFOUND missing.test"), {code: "ENOTFOUND"}))
            : names[host] == null ? real.lookup(host, options as never, callback as never) : callback(null, names[host]);
    return {...real, default: {...(real as unknown as {default: object}).default, lookup}, lookup};
});

const param = "input[0].content[0].image_url";
const limits: ImageLimits = {maxBytes: 50_000, maxPixels: 1_000_000, maxImages: 4, fetchTimeoutMs: 5000, maxRedirects: 3, allowPrivateUrls: false};
const png = encodePng(7, 7, gradient(7, 7));

let server: ImageServer;
beforeAll(async () => {
    const redirect = (location: string) => (_req: unknown, res: import("node:http").ServerResponse) => res.writeHead(302, {Location: location}).end();
    server = await startImageServer({
        "/cat.png": (_req, res) => res.writeHead(200).end(png),
        "/to-metadata": redirect("http://169.254.169.254/latest/meta-data/iam/"),
        "/to-ipv6-loopback": redirect("http://[::1]/cat.png"),
        "/to-lan": redirect("https://192.168.1.1/admin.png"),
        "/to-rebind": redirect("/via-rebind"),
        "/via-rebind": (_req, res) => res.writeHead(302, {Location: `http://rebind.test:${server.port}/cat.png`}).end(),
        "/to-public-name": redirect("/cat.png")
    });
});
afterAll(() => server.close());

async function refusal(url: string): Promise<BadRequestError> {
    const error = await loadImage(url, param, limits, new AbortController().signal).then(() => null, (thrown: unknown) => thrown);
    expect(error, url).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
}

describe("image URL redirects and names", () => {
    it("fetches from a public address", async () => {
        expect(await loadImage(`${server.origin}/cat.png`, param, limits, new AbortController().signal)).toMatchObject({width: 7, height: 7});
    });

    it("checks every redirect hop's address as it checks the first URL's", async () => {
        expect(await refusal(`${server.origin}/to-metadata`)).toMatchObject({
            code: "image_url_not_allowed", param,
            message: expect.stringContaining("host '169.254.169.254' is a link-local address (169.254.0.0/16, where cloud metadata services answer)")
        });
        expect((await refusal(`${server.origin}/to-ipv6-loopback`)).message).toContain("host '[::1]' is a loopback address (::1)");
        expect((await refusal(`${server.origin}/to-lan`)).message).toContain("host '192.168.1.1' is a private address");
    });

    it("connects to the address its own lookup checked, and refuses a name with any private address", async () => {
        // public.test's only address is the test server: the fetch reaching it went through the checked lookup.
        expect(await loadImage(`http://public.test:${server.port}/cat.png`, param, limits, new AbortController().signal)).toMatchObject({width: 7});
        expect(await refusal(`http://rebind.test:${server.port}/cat.png`)).toMatchObject({
            code: "image_url_not_allowed", message: expect.stringContaining("host 'rebind.test' resolves to a private address (10.0.0.0/8)")
        });
        const before = server.requested.filter((path) => path === "/cat.png").length;
        expect((await refusal(`${server.origin}/to-rebind`)).message).toContain("'rebind.test' resolves to a private address");
        expect(server.requested.filter((path) => path === "/cat.png").length).toBe(before);
    });

    it("says when a name does not resolve", async () => {
        expect(await refusal("http://missing.test/cat.png")).toMatchObject({
            code: "image_download_failed", message: expect.stringContaining("could not download the image from http://missing.test/cat.png: its host name does not resolve")
        });
    });
});
