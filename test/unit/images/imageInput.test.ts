import {createHash} from "node:crypto";
import {describe, expect, it} from "vitest";
import {resolveConfig} from "../../../src/config.js";
import {BadRequestError} from "../../../src/errors.js";
import {checkImageCount, loadImage} from "../../../src/images/imageInput.js";
import type {ImageLimits} from "../../../src/images/imageLimits.js";
import {imageLimits} from "../../../src/images/imageLimits.js";
import {encodeBmp, encodeGif, encodeJpeg, encodePng, gradient, pngHeader} from "../../fixtures/images.js";

const param = "messages[1].content[2].image_url.url";
const limits: ImageLimits = {maxBytes: 10_000, maxPixels: 100 * 100, maxImages: 2, fetchTimeoutMs: 1000, maxRedirects: 2, allowPrivateUrls: false};
const png = encodePng(12, 8, gradient(12, 8));
const dataUri = (bytes: Buffer, type = "image/png") => `data:${type};base64,${bytes.toString("base64")}`;
const load = (url: string, overrides: Partial<ImageLimits> = {}) => loadImage(url, param, {...limits, ...overrides}, new AbortController().signal);

/** The 400 a load fails with, checked to name the field. */
async function refusal(url: string, overrides: Partial<ImageLimits> = {}): Promise<BadRequestError> {
    const error = await load(url, overrides).then(() => null, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({status: 400, param, message: expect.stringContaining(`Invalid '${param}': `)});
    return error as BadRequestError;
}

describe("loadImage from inline data", () => {
    it("decodes a data: URI into the bytes, their SHA-256 as the id, and the type and size the bytes say", async () => {
        const image = await load(dataUri(png));
        expect(image).toEqual({bytes: png, id: createHash("sha256").update(png).digest("hex"), mime: "image/png", width: 12, height: 8});
        expect(image.id).toMatch(/^[0-9a-f]{64}$/);
    });

    it("reads each format the decoder reads, whatever type the URI declares", async () => {
        const rgb = gradient(9, 5);
        expect(await load(dataUri(encodeJpeg(9, 5, rgb), "image/jpeg"))).toMatchObject({mime: "image/jpeg", width: 9, height: 5});
        expect(await load(dataUri(encodeGif(9, 5, rgb), "image/gif"))).toMatchObject({mime: "image/gif", width: 9, height: 5});
        expect(await load(dataUri(encodeBmp(9, 5, rgb), "image/bmp"))).toMatchObject({mime: "image/bmp", width: 9, height: 5});
        expect(await load(dataUri(png, "image/jpeg"))).toMatchObject({mime: "image/png"});
        expect(await load(dataUri(png, "IMAGE/PNG"))).toMatchObject({mime: "image/png"});
    });

    it("takes bare base64 (as llama-server does), MIME line breaks, URL-safe base64, no padding, spaces around", async () => {
        const base64 = png.toString("base64");
        expect((await load(base64)).bytes).toEqual(png);
        expect((await load(`data:image/png;base64,${base64.replace(/.{60}/g, "$&\r\n")}`)).bytes).toEqual(png);
        expect((await load(png.toString("base64url"))).bytes).toEqual(png);
        expect((await load(`  ${dataUri(png)}\n`)).bytes).toEqual(png);
        expect((await load(`data:image/png;name=cat.png;base64,${base64}`)).bytes).toEqual(png);
    });

    it("gives bad base64 a 400, not some other bytes", async () => {
        const base64 = png.toString("base64");
        for (const bad of [`data:image/png;base64,${base64.slice(0, 40)}!${base64.slice(40)}`, `data:image/png;base64,${base64}===`,
            `data:image/png;base64,${base64.slice(0, -3)}=`, `${base64.slice(0, 41)}`, "data:image/png;base64,", "   ", "cat.png", "example.com/cat.png"]) {
            expect(await refusal(bad), bad.slice(-20)).toMatchObject({code: "invalid_image_url"});
        }
    });

    it("refuses data: URIs that are not base64 images, and every scheme but http and https", async () => {
        expect((await refusal(dataUri(png, "text/plain"))).message).toContain("'text/plain', not an image type");
        expect((await refusal(`data:image/svg+xml,<svg/>`)).message).toContain("not base64");
        expect((await refusal(`data:image/png;${png.toString("base64")}`)).message).toContain("no ','");
        for (const url of ["file:///etc/passwd", "FILE:///etc/passwd", "ftp://example.com/cat.png", "gopher://example.com/", "javascript:alert(1)", "blob:https://a/b"])
            expect(await refusal(url), url).toMatchObject({code: "invalid_image_url", message: expect.stringContaining("only http and https")});
        expect(await refusal("http://exa mple.com/cat.png")).toMatchObject({code: "invalid_image_url", message: expect.stringContaining("not a valid URL")});
    });

    it("answers bytes that are no image, or a cut-off image, with invalid_image", async () => {
        expect(await refusal(dataUri(Buffer.from("hello, not an image")))).toMatchObject({code: "invalid_image"});
        expect(await refusal(dataUri(png.subarray(0, 20)))).toMatchObject({code: "invalid_image", message: expect.stringContaining("truncated")});
        expect(await refusal(dataUri(Buffer.from("<html><body>login</body></html>")))).toMatchObject({code: "invalid_image", message: expect.stringContaining("HTML page")});
    });

    it("says WebP is not read by this build, and what to send instead", async () => {
        const webp = Buffer.from("RIFF\x1a\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0\x3f\x01\0\xef\0\0", "latin1");
        const error = await refusal(dataUri(webp, "image/webp"));
        expect(error).toMatchObject({code: "unsupported_image_format"});
        expect(error.message).toBe(`Invalid '${param}': the image is a WebP (320x240), which this server's image decoder does not read. Send a PNG or JPEG image (GIF and BMP work too).`);
    });

    it("refuses more bytes than maxBytes, before decoding the base64", async () => {
        const error = await refusal(dataUri(png), {maxBytes: 100});
        expect(error).toMatchObject({code: "image_too_large", message: expect.stringContaining("over the limit of 100 bytes per image (--max-image-bytes)")});
        expect((await load(dataUri(png), {maxBytes: png.length})).bytes).toEqual(png);
    });

    it("refuses a decompression bomb by the size its header claims", async () => {
        const bomb = pngHeader(100_000, 100_000);
        expect(bomb.length).toBeLessThan(40);
        const error = await refusal(dataUri(bomb));
        expect(error).toMatchObject({code: "image_too_large"});
        expect(error.message).toContain("100000x100000 pixels (10000000000), over the limit of 10000 pixels per image (--max-image-pixels)");
        expect(await refusal(dataUri(encodePng(101, 100, gradient(101, 100))), {maxBytes: 100_000})).toMatchObject({code: "image_too_large", message: expect.stringContaining("101x100")});
        expect(await load(dataUri(encodePng(100, 100, gradient(100, 100))), {maxBytes: 100_000})).toMatchObject({width: 100, height: 100});
    });
});

describe("checkImageCount", () => {
    it("allows up to maxImages and answers more with too_many_images", () => {
        expect(() => checkImageCount(2, limits, "messages")).not.toThrow();
        expect(() => checkImageCount(3, limits, "messages")).toThrow(expect.objectContaining({
            status: 400, code: "too_many_images", param: "messages",
            message: "Invalid 'messages': the request holds 3 images, over the limit of 2 per request (--max-images-per-request)."
        }));
    });
});

describe("imageLimits", () => {
    it("maps the settings, with a 10 s fetch and 5 redirects", () => {
        expect(imageLimits(resolveConfig())).toEqual({
            maxBytes: 10_000_000, maxPixels: 8192 * 4096, maxImages: 16, fetchTimeoutMs: 10_000, maxRedirects: 5, allowPrivateUrls: false
        });
        expect(imageLimits(resolveConfig({allowPrivateImageUrls: true, maxImageBytes: 5, maxImagePixels: 6, maxImagesPerRequest: 0})))
            .toMatchObject({maxBytes: 5, maxPixels: 6, maxImages: 0, allowPrivateUrls: true});
    });
});
