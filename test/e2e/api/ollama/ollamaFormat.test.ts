// Ollama's `format` on /api/generate and /api/chat through the official `ollama` client: "json" or a
// JSON schema, streamed and not, enforced by the grammar. A random-weight model sampled at
// temperature 1 writes noise unless held, so every reply that matches is the grammar's work.
import {Ollama} from "ollama";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const seeds = [1, 2, 3, 4, 5];
/** Bounded: every reply it allows is complete well within `bounded` tokens, so each must parse. */
const schema = {type: "object", properties: {answer: {enum: ["yes", "no"]}, sure: {type: "boolean"}}, required: ["answer", "sure"], additionalProperties: false};
const bounded = 64;

describe("Ollama's format through the ollama client", () => {
    let server: TestServer;
    let ollama: Ollama;

    beforeAll(async () => {
        server = await startTestServer({"tiny-chat": await buildTinyChatModel()}, {ctxSize: 1024});
        ollama = new Ollama({host: server.url.replace(/\/v1$/, "")});
    });
    afterAll(async () => server?.stop());

    const expectMatches = (text: string) => {
        const value = JSON.parse(text) as {answer: string, sure: boolean};
        expect(Object.keys(value).sort()).toEqual(["answer", "sure"]);
        expect(["yes", "no"]).toContain(value.answer);
        expect(typeof value.sure).toBe("boolean");
    };

    it("a JSON schema on /api/generate and /api/chat, streamed and not: every reply parses and matches it", async () => {
        const options = {temperature: 1, num_predict: bounded};
        for (const seed of seeds) {
            const generated = await ollama.generate({model: "tiny-chat", prompt: "Is it?", format: schema, stream: false, options: {...options, seed}});
            expectMatches(generated.response ?? "");
            expect(generated.done_reason).toBe("stop");
            let streamed = "";
            for await (const part of await ollama.generate({model: "tiny-chat", prompt: "Is it?", format: schema, stream: true, options: {...options, seed}}))
                streamed += part.response ?? "";
            expectMatches(streamed);
            let chatted = "";
            for await (const part of await ollama.chat({model: "tiny-chat", messages: [{role: "user", content: "Is it?"}], format: schema, stream: true, options: {...options, seed}}))
                chatted += part.message.content;
            expectMatches(chatted);
        }
    });

    it("\"json\" on /api/generate: a reply that ends is one JSON object; cut short, it is the start of one", async () => {
        for (const seed of seeds) {
            const reply = await ollama.generate({model: "tiny-chat", prompt: "Is it?", format: "json", stream: false, options: {temperature: 1, seed, num_predict: 200}});
            // "json" bounds nothing: a random model may still be writing a key when its tokens run out.
            if (reply.done_reason === "stop")
                expect(JSON.parse(reply.response ?? "")).toEqual(expect.any(Object));
            else
                expect((reply.response ?? "").trimStart().startsWith("{")).toBe(true);
        }
    });

    it("refuses a format that is neither \"json\" nor a schema, and a schema it cannot read, with a 400 in Ollama's envelope", async () => {
        const origin = server.url.replace(/\/v1$/, "");
        for (const [format, said] of [["xml", "format must be \"json\" or a JSON schema object"], [5, "format must be"], [{type: "object", properties: {a: {type: "strin"}}}, "unknown type 'strin'"]] as const) {
            const res = await fetch(`${origin}/api/generate`, {method: "POST", body: JSON.stringify({model: "tiny-chat", prompt: "x", format, stream: false})});
            expect(res.status).toBe(400);
            expect(((await res.json()) as {error: string}).error).toContain(said);
        }
        expect((await ollama.generate({model: "tiny-chat", prompt: "x", stream: false, options: {num_predict: 2}})).done).toBe(true);
    });
});
