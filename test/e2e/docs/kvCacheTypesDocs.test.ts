import {readFileSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import type {kvCacheTypeNames} from "../../../src/engine/kvCacheTypes.js";
import {buildWideHeadChatModel} from "../../fixtures/gguf/wideHeadModel.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * The README's KV-cache example as written: the server started with the flags its `chatserve` line
 * gives, and its curl sent, the model it names standing for a tiny model whose heads hold q8_0's
 * blocks; the entry must say what the text after it says, against an f16 server's.
 */
const readme = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8");
const section = readme.slice(readme.indexOf("### KV-cache types"));
const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;

describe("the README's KV-cache types example", () => {
    const flag = (name: string) => new RegExp(`^chatserve .*--${name} (\\S+)`, "m").exec(block)?.[1] as (typeof kvCacheTypeNames)[number];
    const path = /^curl http:\/\/127\.0\.0\.1:8080(\/\S+)$/m.exec(block)?.[1];
    const id = path?.split("/").pop();
    let documented: TestServer;
    let f16: TestServer;

    beforeAll(async () => {
        const wide = await buildWideHeadChatModel();
        documented = await startTestServer({[id!]: wide}, {ctxSize: 2048, parallel: 1, cacheTypeK: flag("cache-type-k"), cacheTypeV: flag("cache-type-v")});
        f16 = await startTestServer({[id!]: wide}, {ctxSize: 2048, parallel: 1});
    });
    afterAll(async () => {
        await documented?.stop();
        await f16?.stop();
    });

    it("starts with both flags and asks for the model's entry", () => {
        expect([flag("cache-type-k"), flag("cache-type-v"), path]).toEqual(["q8_0", "q8_0", "/v1/models/qwen2.5-0.5b-instruct-q8_0"]);
    });

    it("answers with the types and a KV cache 34/64 of f16's, and the model loads and answers with them", async () => {
        const origin = (server: TestServer) => server.url.replace(/\/v1$/, "");
        const entry = await (await fetch(`${origin(documented)}${path}`)).json() as {cache_type_k: string, cache_type_v: string, kv_cache_bytes: number};
        const plain = await (await fetch(`${origin(f16)}${path}`)).json() as typeof entry;
        expect(entry).toMatchObject({cache_type_k: "q8_0", cache_type_v: "q8_0"});
        expect(readme).toContain("`\"cache_type_k\": \"q8_0\", \"cache_type_v\": \"q8_0\"`");
        expect(entry.kv_cache_bytes).toBe(Math.ceil(plain.kv_cache_bytes * 34 / 64));
        const reply = await documented.client().chat.completions.create({model: id!, messages: [{role: "user", content: "Hi"}], temperature: 0, max_tokens: 4});
        expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
    });
});
