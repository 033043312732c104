import http from "node:http";
import net from "node:net";
import type {AddressInfo} from "node:net";
import type {Response} from "express";
import {afterEach, describe, expect, it} from "vitest";
import {abortWhenClientLeaves} from "../../src/http/clientAbort.js";
import {ClientGoneError} from "../../src/errors.js";

/**
 * The signal is made when the route starts, a tick or more after the body was read. A client that
 * left in that gap has already had its response's one "close" event: the signal must still abort,
 * or its whole reply is generated for nobody.
 */
describe("abortWhenClientLeaves", () => {
    let server: http.Server | undefined;
    afterEach(() => new Promise<void>((done) => server == null ? done() : server.close(() => done())));

    /** A server whose handler makes the signal only once `ready` says so, and hands it back. */
    async function serve(ready: (res: http.ServerResponse) => Promise<void>): Promise<{port: number, signal: Promise<AbortSignal>}> {
        let handOver!: (signal: AbortSignal) => void;
        const signal = new Promise<AbortSignal>((resolve) => handOver = resolve);
        server = http.createServer((req, res) => {
            req.resume();
            req.on("end", () => void ready(res).then(() => handOver(abortWhenClientLeaves(res as unknown as Response))));
        });
        await new Promise<void>((listening) => server!.listen(0, "127.0.0.1", listening));
        return {port: (server.address() as AddressInfo).port, signal};
    }

    /** Sends a request, and leaves once `leaveAfter` has settled (the request has reached the server by then). */
    function postAndLeave(port: number, leaveAfter: Promise<unknown>): void {
        const socket = net.connect(port, "127.0.0.1", () => {
            socket.write("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            void leaveAfter.then(() => socket.destroy());
        });
    }

    it("aborts for a client that left before the signal was made", async () => {
        const {port, signal} = await serve((res) => new Promise((gone) => res.once("close", () => gone())));
        postAndLeave(port, new Promise((resolve) => setTimeout(resolve, 20)));
        const made = await signal;
        expect(made.aborted).toBe(true);
        expect(made.reason).toBeInstanceOf(ClientGoneError);
    });

    it("aborts when a client still there leaves later", async () => {
        const {port, signal} = await serve(async () => {});
        // Leaves only once the signal is made: after a fixed pause, a slow server could make it too late.
        postAndLeave(port, signal);
        const made = await signal;
        expect(made.aborted).toBe(false);
        await new Promise((aborted) => made.addEventListener("abort", aborted, {once: true}));
        expect(made.reason).toBeInstanceOf(ClientGoneError);
    });
});
