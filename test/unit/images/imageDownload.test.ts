import {createServer} from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {BadRequestError, ClientGoneError} from "../../../src/errors.js";
import {loadImage} from "../../../src/images/imageInput.js";
import type {ImageLimits} from "../../../src/images/imageLimits.js";
import {NonPublicAddressError, publicOnlyLookup} from "../../../src/images/publicOnlyLookup.js";
import {encodeJpeg, encodePng, gradient} from "../../fixtures/images.js";
import {startImageServer, type ImageServer} from "../support/imageServer.js";

const param = "messages[0].content[1].image_url.url";
const limits: ImageLimits = {maxBytes: 50_000, maxPixels: 1_000_000, maxImages: 4, fetchTimeoutMs: 5000, maxRedirects: 2, allowPrivateUrls: true};
const png = encodePng(10, 6, gradient(10, 6));
const jpeg = encodeJpeg(16, 16, gradient(16, 16));

let server: ImageServer;
beforeAll(async () => {
    server = await startImageServer({
        "/cat.png": (_req, res) => res.writeHead(200, {"Content-Type": "image/png"}).end(png),
        "/cat-as-text": (_req, res) => res.writeHead(200, {"Content-Type": "text/plain"}).end(jpeg),
        "/login": (_req, res) => res.writeHead(200, {"Content-Type": "text/html"}).end("<!doctype html><html>Please sign in</html>"),
        "/gone": (_req, res) => res.writeHead(410, "Gone").end(),
        "/redirect-1": (_req, res) => res.writeHead(302, {Location: "/cat.png"}).end(),
        "/redirect-2": (_req, res) => res.writeHead(301, {Location: "/redirect-1"}).end(),
        "/redirect-3": (_req, res) => res.writeHead(307, {Location: "/redirect-2"}).end(),
        "/redirect-loop": (_req, res) => res.writeHead(302, {Location: "/redirect-loop"}).end(),
        "/redirect-file": (_req, res) => res.writeHead(302, {Location: "file:///etc/passwd"}).end(),
        "/big-declared": (_req, res) => res.writeHead(200, {"Content-Length": "60000"}).end(Buffer.alloc(60_000)),
        "/big-chunked": (_req, res) => {
            res.writeHead(200, {"Content-Type": "image/png"});
            res.write(png);
            const timer = setInterval(() => res.write(Buffer.alloc(8192)), 1);
            res.on("close", () => clearInterval(timer));
        },
        "/never-answers": () => undefined,
        "/stalls-mid-body": (_req, res) => {
            res.writeHead(200, {"Content-Length": String(png.length)});
            res.write(png.subarray(0, 20));
        },
        "/cut-short": (_req, res) => {
            res.writeHead(200, {"Content-Length": String(png.length)});
            res.write(png.subarray(0, 30), () => res.destroy());
        },
        "/gzipped": (_req, res) => res.writeHead(200, {"Content-Encoding": "gzip"}).end(Buffer.from([0x1f, 0x8b, 8, 0]))
    });
});
afterAll(() => server.close());

const load = (url: string, overrides: Partial<ImageLimits> = {}, signal = new AbortController().signal) => loadImage(url, param, {...limits, ...overrides}, signal);

async function refusal(url: string, overrides: Partial<ImageLimits> = {}): Promise<BadRequestError> {
    const error = await load(url, overrides).then(() => null, (thrown: unknown) => thrown);
    expect(error, url).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({status: 400, param});
    return error as BadRequestError;
}

describe("loadImage over http", () => {
    it("refuses loopback URLs by default, without connecting: written as an address, a name or another spelling", async () => {
        const before = server.requested.length;
        for (const host of ["127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "0x7f000001", "127.1", "0.0.0.0"]) {
            const error = await refusal(`http://${host}:${server.port}/cat.png`, {allowPrivateUrls: false});
            expect(error.code, host).toBe("image_url_not_allowed");
            expect(error.message, host).toMatch(/(is|resolves to) an? (loopback|unspecified) address/);
            expect(error.message, host).toContain("--allow-private-image-urls");
        }
        expect(server.requested.length).toBe(before);
        expect((await refusal(`http://169.254.169.254/latest/meta-data/`, {allowPrivateUrls: false})).message).toContain("link-local");
        expect((await refusal(`http://[fd00:ec2::254]/latest/meta-data/`, {allowPrivateUrls: false})).message).toContain("unique local");
    });

    it("checks every address a name resolves to, in the lookup the socket connects with", async () => {
        const result = await new Promise<{error: Error | null}>((resolve) => publicOnlyLookup("localhost", {all: true}, (error) => resolve({error})));
        expect(result.error).toBeInstanceOf(NonPublicAddressError);
        expect(result.error?.message).toMatch(/^localhost resolves to an? loopback address/);
    });

    it("fetches with --allow-private-image-urls, the same image as inline", async () => {
        const image = await load(`${server.origin}/cat.png`);
        expect(image).toMatchObject({bytes: png, mime: "image/png", width: 10, height: 6});
        expect(image.id).toBe((await load(png.toString("base64"))).id);
        expect(await load(`http://localhost:${server.port}/cat.png`)).toMatchObject({width: 10});
    });

    it("judges a download by its bytes, not its Content-Type", async () => {
        expect(await load(`${server.origin}/cat-as-text`)).toMatchObject({mime: "image/jpeg", width: 16, height: 16});
        expect(await refusal(`${server.origin}/login`)).toMatchObject({code: "invalid_image", message: expect.stringContaining("an HTML page, not an image")});
    });

    it("says why a download failed: status, closed port, compressed body", async () => {
        expect(await refusal(`${server.origin}/missing.png?token=secret`)).toMatchObject({
            code: "image_download_failed",
            message: `Invalid '${param}': could not download the image from ${server.origin}/missing.png: the server answered HTTP 404 Not Found.`
        });
        expect((await refusal(`${server.origin}/gone`)).message).toContain("HTTP 410 Gone");
        expect((await refusal(`http://127.0.0.1:${await closedPort()}/cat.png`)).message).toContain("the connection was refused");
        expect((await refusal(`${server.origin}/gzipped`)).message).toContain("compressed (Content-Encoding: gzip)");
        expect((await refusal(`${server.origin}/cut-short`)).code).toMatch(/image_download_failed|invalid_image/);
    });

    it("follows up to maxRedirects redirects, relative ones included", async () => {
        expect(await load(`${server.origin}/redirect-2`)).toMatchObject({width: 10});
        expect(await refusal(`${server.origin}/redirect-3`)).toMatchObject({code: "image_download_failed", message: expect.stringContaining("more than 2 redirects")});
        expect((await refusal(`${server.origin}/redirect-loop`)).message).toContain("more than 2 redirects");
        expect(await refusal(`${server.origin}/redirect-file`)).toMatchObject({code: "image_download_failed", message: expect.stringContaining("a redirect to a file: URL")});
    });

    it("stops reading at maxBytes, declared or streamed", async () => {
        expect(await refusal(`${server.origin}/big-declared`)).toMatchObject({code: "image_too_large", message: expect.stringContaining("60000 bytes, over the limit of 50000")});
        expect(await refusal(`${server.origin}/big-chunked`)).toMatchObject({code: "image_too_large", message: expect.stringContaining("more than the limit of 50000")});
    });

    it("gives up after fetchTimeoutMs, whether the server never answers or stops mid-body", async () => {
        expect(await refusal(`${server.origin}/never-answers`, {fetchTimeoutMs: 200})).toMatchObject({
            code: "image_download_failed", message: expect.stringContaining("no complete answer within 0.2 s")
        });
        expect((await refusal(`${server.origin}/stalls-mid-body`, {fetchTimeoutMs: 200})).message).toContain("no complete answer within 0.2 s");
    });

    it("ends at once with the request's own reason when its client leaves", async () => {
        const client = new AbortController();
        const pending = load(`${server.origin}/never-answers`, {}, client.signal);
        setTimeout(() => client.abort(new ClientGoneError()), 50);
        await expect(pending).rejects.toBeInstanceOf(ClientGoneError);
        const gone = new AbortController();
        gone.abort(new ClientGoneError());
        await expect(load(`${server.origin}/cat.png`, {}, gone.signal)).rejects.toBeInstanceOf(ClientGoneError);
    });
});

/** A port nothing listens on (one just freed). */
async function closedPort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const {port} = probe.address() as {port: number};
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
}
