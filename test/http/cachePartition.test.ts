import request from "supertest";
import {describe, expect, it} from "vitest";
import {createHash} from "node:crypto";
import {chatRequest, createTestApp, MODEL} from "./support/testApp.js";

const sha256 = (key: string) => createHash("sha256").update(key).digest("hex");

/** One request on every API that generates (and the two that count a prompt's tokens), with `key`. */
async function everyApi(app: ReturnType<typeof createTestApp>["app"], key: string | null) {
    const send = (path: string, body: object) => {
        const call = request(app).post(path).send(body);
        return (key == null ? call : call.set("Authorization", `Bearer ${key}`)).expect(200);
    };
    await send("/v1/chat/completions", chatRequest());
    await send("/v1/responses", {model: MODEL, input: "Say hello"});
    await send("/v1/responses/input_tokens", {model: MODEL, input: "Say hello"});
    await send("/v1/messages", {model: MODEL, max_tokens: 16, messages: [{role: "user", content: "Say hello"}]});
    await send("/v1/messages/count_tokens", {model: MODEL, messages: [{role: "user", content: "Say hello"}]});
    await send("/v1/completions", {model: MODEL, prompt: "def add(a, b):"});
    await send("/v1/completions", {model: MODEL, prompt: "def add(a, b):", suffix: "\n\nprint(add(1, 2))"});
}

describe("cache partitions", () => {
    it("with several keys, gives each key's requests on every API a partition of their own (its key's hash, never the key)", async () => {
        const {app, model} = createTestApp({apiKeys: ["key-one", "key-two"]});
        model.supportsInfill = true;
        await everyApi(app, "key-one");
        await everyApi(app, "key-two");
        // chat, responses, messages, completions, fill-in-the-middle: one lease each per key.
        expect(model.leasePartitions).toEqual([...Array(5).fill(sha256("key-one")), ...Array(5).fill(sha256("key-two"))]);
        // Each chat-shaped prompt (its images' cache), counted ones included.
        expect(model.promptPartitions).toEqual([...Array(5).fill(sha256("key-one")), ...Array(5).fill(sha256("key-two"))]);
    });

    it("with --share-prefix-cache, one key, or none, every request shares the caches", async () => {
        const cases: Array<[{apiKeys?: string[], sharePrefixCache?: boolean}, string | null]> = [
            [{apiKeys: ["key-one", "key-two"], sharePrefixCache: true}, "key-two"], [{apiKeys: ["key-one"]}, "key-one"], [{}, null]
        ];
        for (const [options, key] of cases) {
            const {app, model} = createTestApp(options);
            model.supportsInfill = true;
            await everyApi(app, key);
            expect(model.leasePartitions).toEqual(Array(5).fill(undefined));
            expect(model.promptPartitions).toEqual(Array(5).fill(undefined));
        }
    });
});
