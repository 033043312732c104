import type {NextFunction, Request, Response} from "express";
import {describe, expect, it} from "vitest";
import {openAiErrors} from "../../../src/api/openai-shared/openAiErrors.js";
import {BadRequestError, ClientGoneError} from "../../../src/errors.js";
import {errorHandler} from "../../../src/http/errorHandler.js";
import {createLogger} from "../../../src/logger.js";

/** The handler's log lines and its answer, for an error met by a request whose client is there or gone. */
function handle(error: unknown, {clientGone}: {clientGone: boolean}) {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger("debug", {write: (line: string) => lines.push(JSON.parse(line))});
    const answer: {status?: number, body?: unknown} = {};
    const res = {
        destroyed: clientGone, headersSent: false, locals: {requestId: "req_1", errorEnvelope: openAiErrors},
        status(code: number) { answer.status = code; return this; },
        set() { return this; },
        json(body: unknown) { answer.body = body; return this; }
    };
    errorHandler(logger)(error, {path: "/v1/chat/completions", complete: true} as Request, res as unknown as Response, (() => {}) as NextFunction);
    return {events: lines.map((line) => [line.level, line.event]), answer};
}

describe("errorHandler", () => {
    it("answers a bug with a generic 500 and logs it in full", () => {
        const {events, answer} = handle(new TypeError("oops"), {clientGone: false});
        expect(answer.status).toBe(500);
        expect(events).toEqual([[50, "unhandled_error"]]);
    });

    it("still logs a bug when its client has gone, and answers nobody", () => {
        const {events, answer} = handle(new TypeError("oops"), {clientGone: true});
        expect(answer.status).toBeUndefined();
        expect(events).toEqual([[50, "unhandled_error"]]);
    });

    it("notes a client that went away at debug level only", () => {
        expect(handle(new ClientGoneError(), {clientGone: true}).events).toEqual([[20, "client_gone"]]);
    });

    it("answers a client error with its status and logs nothing", () => {
        const {events, answer} = handle(new BadRequestError("bad", {param: "model"}), {clientGone: false});
        expect(answer).toMatchObject({status: 400, body: {error: {message: "bad", param: "model"}}});
        expect(events).toEqual([]);
    });
});
