import http, {type IncomingMessage} from "node:http";
import https from "node:https";
import {ApiError} from "../errors.js";
import {nonPublicRange} from "./addressRanges.js";
import {imageErrors} from "./imageErrors.js";
import type {ImageLimits} from "./imageLimits.js";
import {NonPublicAddressError, publicOnlyLookup} from "./publicOnlyLookup.js";

/** Why the fetcher stopped itself: the deadline for the whole download, redirects included. */
class DownloadTimeout extends Error {}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * An http(s) image URL → its bytes, within the limits: every hop of a redirect chain is checked
 * as the first URL is (scheme, and the address connected to: publicOnlyLookup), the body is read
 * as it streams and dropped once it passes maxBytes, and one deadline covers the whole download.
 * The request's own signal (its client went away) ends it at once with that signal's reason.
 * Every other failure is a 400 that says why; none is the server's fault.
 */
export async function downloadImage(url: URL, param: string, limits: ImageLimits, signal: AbortSignal): Promise<Buffer> {
    signal.throwIfAborted();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new DownloadTimeout()), limits.fetchTimeoutMs);
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener("abort", onAbort, {once: true});
    try {
        let current = url;
        for (let redirects = 0; ; redirects++) {
            checkHost(current, param, limits);
            const response = await get(current, limits, stop.signal);
            const location = response.headers.location;
            if (redirectStatuses.has(response.statusCode ?? 0) && location != null) {
                response.destroy();
                if (redirects >= limits.maxRedirects)
                    throw imageErrors.downloadFailed(param, url.href, `more than ${limits.maxRedirects} redirects`);
                current = nextHop(location, current, url, param);
                continue;
            }
            if (response.statusCode == null || response.statusCode < 200 || response.statusCode > 299) {
                response.destroy();
                throw imageErrors.downloadFailed(param, current.href, `the server answered HTTP ${response.statusCode} ${response.statusMessage ?? ""}`.trim());
            }
            return await readBody(response, current, param, limits.maxBytes);
        }
    } catch (error) {
        throw describeFailure(error, url, param, limits, stop.signal);
    } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
    }
}

/** A host written as an IP address is connected to without a lookup: it is checked here. */
function checkHost(url: URL, param: string, limits: ImageLimits): void {
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const range = nonPublicRange(host);
    if (!limits.allowPrivateUrls && range != null && !range.startsWith("not an IP address"))
        throw imageErrors.notAllowed(param, url.hostname, `is ${range}`);
}

function nextHop(location: string, current: URL, first: URL, param: string): URL {
    let next: URL;
    try {
        next = new URL(location, current);
    } catch {
        throw imageErrors.downloadFailed(param, first.href, `a redirect to an invalid URL ('${location.slice(0, 100)}')`);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:")
        throw imageErrors.downloadFailed(param, first.href, `a redirect to a ${next.protocol} URL (only http and https are fetched)`);
    return next;
}

function get(url: URL, limits: ImageLimits, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
        const client = url.protocol === "https:" ? https : http;
        const request = client.request(url, {
            method: "GET",
            // A connection of its own: never a pooled socket that another lookup opened.
            agent: false,
            lookup: limits.allowPrivateUrls ? undefined : publicOnlyLookup,
            signal,
            headers: {"Accept": "image/*", "Accept-Encoding": "identity", "User-Agent": "chatserve"}
        }, resolve);
        request.on("error", reject);
        request.end();
    });
}

async function readBody(response: IncomingMessage, url: URL, param: string, maxBytes: number): Promise<Buffer> {
    const declared = Number(response.headers["content-length"]);
    if (declared > maxBytes) {
        response.destroy();
        throw imageErrors.tooManyBytes(param, declared, maxBytes);
    }
    const encoding = response.headers["content-encoding"];
    if (encoding != null && encoding.toLowerCase() !== "identity") {
        response.destroy();
        throw imageErrors.downloadFailed(param, url.href, `the server sent the image compressed (Content-Encoding: ${encoding})`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) {
            response.destroy();
            throw imageErrors.tooManyBytes(param, null, maxBytes);
        }
        chunks.push(chunk);
    }
    if (!response.complete)
        throw imageErrors.downloadFailed(param, url.href, "the connection closed before the image was complete");
    return Buffer.concat(chunks, total);
}

function describeFailure(error: unknown, url: URL, param: string, limits: ImageLimits, stopped: AbortSignal): unknown {
    if (stopped.aborted && !(stopped.reason instanceof DownloadTimeout))
        return stopped.reason;
    if (stopped.aborted)
        return imageErrors.downloadFailed(param, url.href, `no complete answer within ${limits.fetchTimeoutMs / 1000} s`);
    const cause = error instanceof Error && error.cause instanceof NonPublicAddressError ? error.cause : error;
    if (cause instanceof NonPublicAddressError)
        return imageErrors.notAllowed(param, cause.host, cause.where);
    if (!(error instanceof Error) || error instanceof ApiError)
        return error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOTFOUND" || code === "EAI_AGAIN" ? "its host name does not resolve"
        : code === "ECONNREFUSED" ? "the connection was refused"
            : code === "ECONNRESET" ? "the connection was reset"
                : error.message;
    return imageErrors.downloadFailed(param, url.href, reason);
}
