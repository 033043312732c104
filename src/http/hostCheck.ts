import {isIP} from "node:net";
import type {NextFunction, Request, Response} from "express";
import {ApiError, BadRequestError} from "../errors.js";

/**
 * Which `Host` a request may name: the guard against DNS rebinding. A web page on evil.example can
 * point its own name at 127.0.0.1 once it has loaded; the browser then treats this server as
 * evil.example, same origin, and lets the page read every reply (CORS never applies). What gives
 * it away is the `Host` header, which still says evil.example. So:
 *
 * - On a loopback bind (127.0.0.1, ::1, localhost: the default), only loopback names are served:
 *   localhost, *.localhost, 127.x.x.x and [::1], with any port, and the names given with
 *   `--allowed-host` (a reverse proxy that passes its own Host on). Everything else is a 403,
 *   /health included: it names the backend, and a supervisor on this machine says localhost anyway.
 *   This is Jupyter's rule when it listens on localhost, and Ollama's.
 * - On any other bind (`--host 0.0.0.0`, the usual container set-up) without API keys, the same
 *   check holds, for the same page can rebind its name to this machine's LAN address: loopback
 *   names, addresses and the `--allowed-host` names are served. An address can never be a
 *   rebinding page's Host: the attack needs a name whose DNS answer the attacker controls.
 * - On another bind with API keys, any Host is served unless `--allowed-host` names some: a
 *   rebinding page cannot know a key, and the server is meant to be reached by names chatserve
 *   cannot know.
 * - `--allowed-host '*'` serves every Host on every bind: the explicit way to turn the check off.
 *
 * HTTP/1.1 requires `Host`; a request without one is a 400 (Node would answer it with a bare
 * status line: malformedRequest.ts turns that off). One that sends it twice is a 400 too.
 */
export function allowedHostsOnly(bindHost: string, allowedHosts: readonly string[], keysConfigured: boolean) {
    const allowed = new Set(allowedHosts.map(normalized));
    const checked = !allowed.has("*") && (isLoopbackHost(bindHost) || !keysConfigured || allowed.size > 0);
    const addressesPass = !isLoopbackHost(bindHost);
    return (req: Request, _res: Response, next: NextFunction) => {
        const hosts = req.headersDistinct.host ?? [];
        if (hosts.length > 1)
            throw new BadRequestError("The request has more than one Host header.", {code: "invalid_host"});
        const host = hosts[0];
        if (host == null || host.trim() === "") {
            // HTTP/1.0 had no Host; a browser always sends one, so it cannot be a rebinding page.
            if (req.httpVersion === "1.0")
                return next();
            throw new BadRequestError("The request has no Host header, which HTTP/1.1 requires.", {code: "missing_host"});
        }
        if (!checked)
            return next();
        const name = hostName(host);
        if (isLoopbackHost(name) || allowed.has(name) || (addressesPass && isIP(name) !== 0))
            return next();
        throw new ApiError(403, `The Host '${host.slice(0, 100)}' is not one this server answers to. If you reach chatserve by that name ` +
            `(a reverse proxy, a name on your network), start it with --allowed-host ${name.slice(0, 100)}.`, "invalid_request_error", "host_not_allowed");
    };
}

/** localhost, *.localhost, 127.0.0.0/8, ::1 (an IPv4 loopback address mapped into IPv6 too). */
export function isLoopbackHost(host: string): boolean {
    const name = normalized(host);
    if (name === "localhost" || name.endsWith(".localhost"))
        return true;
    const ipv4 = name.startsWith("::ffff:") ? name.slice("::ffff:".length) : name;
    if (isIP(ipv4) === 4)
        return ipv4.startsWith("127.");
    return isIP(name) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(name);
}

/** "Example.COM:8080" → "example.com"; "[::1]:8080" → "::1"; a trailing dot (an absolute name) dropped. */
function hostName(host: string): string {
    const trimmed = host.trim();
    const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(trimmed);
    if (bracketed != null)
        return normalized(bracketed[1]!);
    return normalized(trimmed.replace(/:\d*$/, ""));
}

function normalized(name: string): string {
    return name.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}
