import {lookup, type LookupAddress} from "node:dns";
import type {LookupFunction} from "node:net";
import {nonPublicRange} from "./addressRanges.js";

/** A host name that resolved to an address image URLs may not reach; `where`: "resolves to a loopback address (…)". */
export class NonPublicAddressError extends Error {
    public constructor(public readonly host: string, public readonly where: string) {
        super(`${host} ${where}`);
    }
}

/**
 * The DNS lookup the image fetcher's sockets connect through: it resolves the name and refuses
 * it when any of its addresses is not public, so the address checked is the address connected
 * to. Checking a name first and letting the socket resolve it again would let a DNS server answer
 * a public address to the check and 127.0.0.1 to the connection (DNS rebinding).
 * Node calls it with `all: true` when it tries several addresses (happy eyeballs), else for one.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
    lookup(hostname, {family: options.family, hints: options.hints, all: true}, (error, addresses: LookupAddress[]) => {
        if (error != null)
            return callback(error, "", 0);
        const refused = addresses.map(({address}) => nonPublicRange(address)).find((range) => range != null);
        if (refused != null)
            return callback(new NonPublicAddressError(hostname, `resolves to ${refused}`), "", 0);
        if (addresses.length === 0)
            return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {code: "ENOTFOUND"}), "", 0);
        if (options.all === true)
            return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
    });
};
