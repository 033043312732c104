// Failures after the stream has started, and clients that leave mid-stream.
import http from "node:http";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {afterEach, describe, expect, it} from "vitest";
import {ApiError, ServiceShuttingDownError} from "../../src/errors.js";
import {dataEvents} from "./support/sse.js";
import {chatRequest, createTestApp, errorOf, MODEL} from "./support/testApp.js";

describe("errors mid-stream", () => {
    it("a crash in the engine becomes a `data: {error}` event, then the stream ends without [DONE]", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["Hel"], failWith: new Error("GPU fell over")};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({stream: true})).buffer(true);
        expect(res.status).toBe(200);

        const events = dataEvents(res.text);
        expect(events).not.toContain("[DONE]");
        const last = JSON.parse(events.at(-1)!);
        expect(errorOf(last)).toMatchObject({type: "server_error", code: "internal_error"});
        // The internal message is not leaked to the client.
        expect(res.text).not.toContain("GPU fell over");
        expect(JSON.parse(events.at(-2)!).choices[0].delta.content).toBe("Hel");
        expect(t.model.activeLeases).toBe(0);

        t.model.script = {pieces: ["fine"]};
        const next = await request(t.app).post("/v1/chat/completions").send(chatRequest());
        expect(next.body.choices[0].message.content).toBe("fine");
    });

    it("an API error mid-stream keeps its own type and code", async () => {
        const t = createTestApp();
        t.model.script = {pieces: [], failWith: new ApiError(503, "shutting down", "server_error", "shutting_down")};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({stream: true})).buffer(true);
        const events = dataEvents(res.text);
        expect(errorOf(JSON.parse(events.at(-1)!))).toEqual({message: "shutting down", type: "server_error", param: null, code: "shutting_down"});
    });

    it("a non-streamed request whose generation fails gets a 500 envelope", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["x"], failWith: new Error("boom")};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest());
        expect(res.status).toBe(500);
        expect(errorOf(res.body)).toMatchObject({type: "server_error", code: "internal_error"});
        expect(t.model.activeLeases).toBe(0);
    });
});

describe("a client that leaves mid-stream", () => {
    let server: http.Server | undefined;
    afterEach(async () => {
        server?.closeAllConnections();
        await new Promise((resolve) => server?.close(resolve));
    });

    it("aborts the generation and frees its sequence", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["Hello"], hangUntilAborted: true};
        server = http.createServer(t.app);
        await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
        const {port} = server.address() as AddressInfo;

        const released = t.model.nextRelease();
        const req = http.request({port, host: "127.0.0.1", method: "POST", path: "/v1/chat/completions", headers: {"content-type": "application/json"}});
        req.on("error", () => {});
        req.end(JSON.stringify(chatRequest({stream: true})));
        const response = await new Promise<http.IncomingMessage>((resolve) => req.on("response", resolve));
        await new Promise((resolve) => response.once("data", resolve));
        req.destroy();

        await released;
        expect(t.model.generations[0]!.signal.aborted).toBe(true);
        expect(t.model.activeLeases).toBe(0);
    });
});

describe("the server's stop at the end of the shutdown grace period", () => {
    /** A reply whose generation is busy (a long prompt batch) and will not look at its signal until `finish()`. */
    async function stoppedWhileBusy(body: Record<string, unknown>, path = "/v1/chat/completions") {
        const stopping = new AbortController();
        const t = createTestApp({stopping: stopping.signal});
        let finish!: () => void;
        t.model.script = {pieces: ["Hel"], busyUntil: new Promise<void>((resolve) => finish = resolve)};
        const reply = request(t.app).post(path).send(body).buffer(true);
        const answered = new Promise<request.Response>((resolve, reject) => reply.then(resolve, reject));
        while (t.model.generations.length === 0)
            await new Promise((resolve) => setTimeout(resolve, 5));
        stopping.abort(new ServiceShuttingDownError("The server is shutting down: this reply was cut short."));
        const res = await answered; // before the generation has finished
        const released = t.model.nextRelease();
        finish();
        await released;
        return res;
    }

    it("ends a stream with the shutting_down error event at once, not after the batch", async () => {
        const res = await stoppedWhileBusy(chatRequest({stream: true}));
        const events = dataEvents(res.text);
        expect(errorOf(JSON.parse(events.at(-1)!))).toMatchObject({code: "shutting_down"});
        expect(events).not.toContain("[DONE]");
    });

    it("answers a reply not sent yet with a 503 shutting_down at once", async () => {
        const res = await stoppedWhileBusy(chatRequest());
        expect(res.status).toBe(503);
        expect(errorOf(res.body)).toMatchObject({code: "shutting_down", message: expect.stringContaining("cut short")});
    });

    it("does the same for legacy completions", async () => {
        const res = await stoppedWhileBusy({model: MODEL, prompt: "Once upon a time"}, "/v1/completions");
        expect(res.status).toBe(503);
        expect(errorOf(res.body)).toMatchObject({code: "shutting_down"});
    });

    it("answers a schema request to a model that stopped serving with the stop's 503, not a 400 about its schema", async () => {
        const t = createTestApp();
        await request(t.app).post("/v1/chat/completions").send(chatRequest()); // loads the model
        t.model.stopQueueing(new ServiceShuttingDownError());
        const res = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({response_format: {type: "json_schema", json_schema: {name: "x", schema: {type: "object", properties: {a: {type: "string"}}}}}}));
        expect(res.status).toBe(503);
        expect(errorOf(res.body)).toMatchObject({code: "shutting_down"});
    });

    it("answers a request that arrives after the stop with the stop's 503 at once", async () => {
        const stopping = new AbortController();
        const t = createTestApp({stopping: stopping.signal});
        stopping.abort(new ServiceShuttingDownError("The server is shutting down: this reply was cut short."));
        for (const path of ["/v1/chat/completions", "/v1/completions"]) {
            const res = await request(t.app).post(path).send(path === "/v1/completions" ? {model: MODEL, prompt: "Hi"} : chatRequest()).timeout(2000);
            expect(res.status).toBe(503);
            expect(errorOf(res.body)).toMatchObject({code: "shutting_down"});
        }
    });
});
