// Lookup decoding (on by default, --no-lookup-decoding) through real servers: replies at temperature 0 are the same
// byte for byte with it on and off, streams sharing batches included, and /metrics counts the
// drafted and accepted tokens by source. The lookup pool drafts a repeated request from the last
// one, and never from another API key's.
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {parsePrometheusText} from "../../http/support/prometheusText.js";
import {fixedDraftCost, startTestServer, type TestServer} from "../support/testServer.js";

describe("lookup decoding", () => {
    let plain: TestServer;
    let lookup: TestServer;
    const model = "tiny-chat";
    // Repeats in the prompt give lookup runs to follow; the tiny random model repeats itself too.
    const prompts = ["one two three four one two three four one two three", "Write a list: apple, pear, apple, pear, apple,", "Hello"];

    beforeAll(async () => {
        const file = await buildTinyChatModel();
        plain = await startTestServer({[model]: file}, {parallel: 2, ctxSize: 512, lookupDecoding: false});
        // The same file under a second id that chatserve.json takes lookup decoding away from.
        // Lookup is on by default: the server is given no lookup setting.
        lookup = await startTestServer({[model]: file, "no-lookup": file}, {parallel: 2, ctxSize: 512, ...fixedDraftCost},
            {"chatserve.json": JSON.stringify({models: {"no-lookup": {lookup_decoding: false}}})});
    });
    afterAll(async () => {
        await plain?.stop();
        await lookup?.stop();
    });

    const reply = async (server: TestServer, content: string, stop?: string[]) => {
        const completion = await server.client().chat.completions.create({model, messages: [{role: "user", content}], max_tokens: 64, temperature: 0, ...(stop == null ? {} : {stop})});
        return completion.choices[0]!.message.content;
    };

    it("gives the replies plain decoding gives, one at a time and two sharing batches, and counts its drafts", async () => {
        for (const prompt of prompts)
            expect(await reply(lookup, prompt)).toBe(await reply(plain, prompt));
        const together = await Promise.all(prompts.slice(0, 2).map((prompt) => reply(lookup, prompt)));
        expect(together).toEqual(await Promise.all(prompts.slice(0, 2).map((prompt) => reply(plain, prompt))));

        const metrics = parsePrometheusText(await (await fetch(`${lookup.url.replace(/\/v1$/, "")}/metrics`)).text());
        const drafted = metrics.value("chatserve:spec_decode_num_draft_tokens_total", {model, source: "lookup"});
        const accepted = metrics.value("chatserve:spec_decode_num_accepted_tokens_total", {model, source: "lookup"});
        expect(drafted).toBeGreaterThan(0);
        expect(accepted).toBeGreaterThanOrEqual(0);
        expect(accepted).toBeLessThanOrEqual(drafted!);
        const none = parsePrometheusText(await (await fetch(`${plain.url.replace(/\/v1$/, "")}/metrics`)).text());
        expect(none.value("chatserve:spec_decode_num_draft_tokens_total", {model, source: "lookup"})).toBeUndefined();
        // The cost drafts are sized by: fixed here; measured on the plain server, which never drafted, so still its prior.
        expect(metrics.value("chatserve:spec_decode_draft_token_cost", {model})).toBe(0.15);
        expect(none.value("chatserve:spec_decode_draft_token_cost", {model})).toBe(0.15);
        // A pass's own cost: none beside a fixed token's, none yet measured where nothing drafted.
        expect(metrics.value("chatserve:spec_decode_draft_pass_cost", {model})).toBe(0);
        expect(none.value("chatserve:spec_decode_draft_pass_cost", {model})).toBe(0);
    });

    it("is off for a model whose chatserve.json entry says lookup_decoding: false", async () => {
        const completion = await lookup.client().chat.completions.create({model: "no-lookup", messages: [{role: "user", content: prompts[0]!}], max_tokens: 64, temperature: 0});
        expect(completion.choices[0]!.message.content).toBe(await reply(plain, prompts[0]!));
        const metrics = parsePrometheusText(await (await fetch(`${lookup.url.replace(/\/v1$/, "")}/metrics`)).text());
        expect(metrics.value("chatserve:generation_tokens_total", {model: "no-lookup"})).toBe(completion.usage!.completion_tokens);
        for (const source of ["lookup", "pool"])
            expect(metrics.value("chatserve:spec_decode_num_draft_tokens_total", {model: "no-lookup", source})).toBeUndefined();
        // The same prompt drafts on the model without an entry (the first test sent it there).
        expect(metrics.value("chatserve:spec_decode_num_draft_tokens_total", {model, source: "lookup"})).toBeGreaterThan(0);
    });

    it("ends at a stop sequence where plain decoding does", async () => {
        const full = await reply(plain, prompts[0]!);
        const stop = full!.slice(20, 23);
        expect(await reply(lookup, prompts[0]!, [stop])).toBe(await reply(plain, prompts[0]!, [stop]));
    });
});

describe("the lookup pool", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        // Two API keys: each has a cache partition of its own, and so a pool of its own.
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 2, ctxSize: 512, lookupDecoding: true, apiKeys: ["key-a", "key-b"], ...fixedDraftCost});
    });
    afterAll(async () => {
        await server?.stop();
    });

    const poolCounts = async () => {
        const response = await fetch(`${server.url.replace(/\/v1$/, "")}/metrics`, {headers: {Authorization: "Bearer key-a"}});
        expect(response.status).toBe(200);
        const metrics = parsePrometheusText(await response.text());
        return {
            drafted: metrics.value("chatserve:spec_decode_num_draft_tokens_total", {model, source: "pool"}) ?? 0,
            accepted: metrics.value("chatserve:spec_decode_num_accepted_tokens_total", {model, source: "pool"}) ?? 0
        };
    };
    /** One greedy reply, and what the pool drafted and got accepted for it. */
    const reply = async (key: string) => {
        const before = await poolCounts();
        const completion = await server.client(key).chat.completions.create({
            model, messages: [{role: "user", content: "Tell me a story about a lighthouse."}], max_tokens: 48, temperature: 0
        });
        const after = await poolCounts();
        return {text: completion.choices[0]!.message.content, drafted: after.drafted - before.drafted, accepted: after.accepted - before.accepted};
    };

    it("drafts a request's reply from an earlier request's, of the same API key only", async () => {
        const first = await reply("key-a");
        const again = await reply("key-a");
        expect(again.text).toBe(first.text);
        // The earlier reply is in key-a's pool: most of this one is drafted from it, and accepted.
        expect(again.accepted).toBeGreaterThan(first.accepted);
        expect(again.accepted).toBeGreaterThanOrEqual(24);
        // key-b's pool has never seen it: its first request drafts exactly as key-a's first did.
        const other = await reply("key-b");
        expect(other).toEqual(first);
    });
});
