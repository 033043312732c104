import http from "node:http";
import type {AddressInfo} from "node:net";
import express, {type Response} from "express";
import request from "supertest";
import {describe, expect, it} from "vitest";
import type {GenerationEvent, GenerationResult} from "../../../src/engine/generationEvents.js";
import {ApiError, ServiceShuttingDownError} from "../../../src/errors.js";
import {useErrorEnvelope, type ErrorEnvelope} from "../../../src/http/errorEnvelope.js";
import {errorHandler} from "../../../src/http/errorHandler.js";
import type {NdjsonWriter} from "../../../src/http/ndjsonWriter.js";
import type {GenerationEvents, StreamReplyFormat} from "../../../src/http/replyFormat.js";
import {ReplyWriter} from "../../../src/http/replyWriter.js";
import {requestLog} from "../../../src/http/requestLog.js";
import {createLogger} from "../../../src/logger.js";

/** An envelope of Ollama's shape, `{"error": "<message>"}`, as the next API will hand it over. */
const plainErrors: ErrorEnvelope = {
    response: (error) => ({status: error.status, body: {error: error.message}}),
    streamEvent: (error) => ({data: {error: error.message}})
};

/** Text pieces, then the end: a result, a failure, or (`waitForAbort`) an abort when the request's signal fires. */
type Script = {pieces: string[], failWith?: Error, waitForAbort?: boolean};

async function* generation({pieces, failWith, waitForAbort}: Script, signal: AbortSignal): GenerationEvents {
    for (const text of pieces)
        yield {type: "text", text} satisfies GenerationEvent;
    if (failWith != null)
        throw failWith;
    if (waitForAbort === true)
        await new Promise((aborted) => signal.addEventListener("abort", aborted, {once: true}));
    return {finishReason: waitForAbort === true ? "abort" : "stop", promptTokens: 4, cachedTokens: 0, completionTokens: pieces.length};
}

/** One object per text piece, then a last one with the count, as Ollama's /api/generate streams. */
function lines(out: NdjsonWriter, events: GenerationEvents): StreamReplyFormat {
    return {
        choices: 1,
        startChoice: () => ({events, handlers: {text: (text) => out.send({response: text, done: false})}}),
        finish: (usage) => out.send({response: "", done: true, eval_count: usage.completionTokens})
    };
}

/** An app with one NDJSON route over `script`; the usage each request recorded (read once it is there), and how many releases ran. */
function ndjsonApp(script: Script, stopping?: AbortSignal) {
    const logger = createLogger("silent");
    const replies = new ReplyWriter({logger, logPrompts: false, stopping});
    const responses: Response[] = [];
    let releases = 0;
    const app = express();
    app.use(requestLog(logger));
    app.use(useErrorEnvelope(plainErrors));
    app.use((_req, res: Response, next) => {
        responses.push(res);
        next();
    });
    app.post("/api/generate", async (_req, res) => {
        const signal = replies.begin(res, "tiny");
        await replies.ndjson(res, () => releases++, (out) => lines(out, generation(script, signal)));
    });
    app.use(errorHandler(logger));
    const recorded = () => responses.map((res) => res.locals.usage as GenerationResult | undefined);
    return {app, recorded, releases: () => releases};
}

const parsedLines = (text: string) => text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as unknown);

describe("ReplyWriter.ndjson", () => {
    it("streams one JSON object per line as application/x-ndjson, records the usage and releases the generation", async () => {
        const t = ndjsonApp({pieces: ["Hel", "lo"]});
        const res = await request(t.app).post("/api/generate").buffer(true);
        expect(res.status).toBe(200);
        expect(res.headers["content-type"]).toBe("application/x-ndjson");
        expect(res.text.endsWith("\n")).toBe(true);
        expect(parsedLines(res.text)).toEqual([
            {response: "Hel", done: false}, {response: "lo", done: false}, {response: "", done: true, eval_count: 2}
        ]);
        await expect.poll(t.recorded).toEqual([expect.objectContaining({finishReason: "stop", completionTokens: 2})]);
        expect(t.releases()).toBe(1);
    });

    it("writes a failure after the start as one last line in the request's envelope", async () => {
        const t = ndjsonApp({pieces: ["Hel"], failWith: new ApiError(400, "the grammar broke", "invalid_request_error")});
        const res = await request(t.app).post("/api/generate").buffer(true);
        expect(parsedLines(res.text)).toEqual([{response: "Hel", done: false}, {error: "the grammar broke"}]);
        expect(t.releases()).toBe(1);
    });

    it("stops the generation of a client that left, and still counts its tokens, as an abort", async () => {
        const t = ndjsonApp({pieces: ["Hel"], waitForAbort: true});
        const server = http.createServer(t.app);
        await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
        try {
            const req = http.request({port: (server.address() as AddressInfo).port, host: "127.0.0.1", method: "POST", path: "/api/generate"});
            req.on("error", () => {});
            req.end();
            const response = await new Promise<http.IncomingMessage>((resolve) => req.on("response", resolve));
            await new Promise((firstLine) => response.once("data", firstLine));
            req.destroy();
            await expect.poll(t.recorded).toEqual([expect.objectContaining({finishReason: "abort", completionTokens: 1})]);
            expect(t.releases()).toBe(1);
        } finally {
            server.closeAllConnections();
            await new Promise((closed) => server.close(closed));
        }
    });

    it("ends a stream at the server's stop with the stop's error line", async () => {
        const stopping = new AbortController();
        const t = ndjsonApp({pieces: ["Hel"], waitForAbort: true}, stopping.signal);
        const reply = request(t.app).post("/api/generate").buffer(true).then((res) => res);
        setTimeout(() => stopping.abort(new ServiceShuttingDownError("The server is shutting down.")), 50);
        const res = await reply;
        expect(parsedLines(res.text)).toEqual([{response: "Hel", done: false}, {error: "The server is shutting down."}]);
        await expect.poll(t.recorded).toEqual([expect.objectContaining({finishReason: "abort", completionTokens: 1})]);
        expect(t.releases()).toBe(1);
    });
});
