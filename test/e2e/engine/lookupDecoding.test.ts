// Lookup decoding (--lookup-decoding) through real servers: replies at temperature 0 are the same
// byte for byte with it on and off, streams sharing batches included, and /metrics counts the
// drafted and accepted tokens by source.
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {parsePrometheusText} from "../../http/support/prometheusText.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

describe("lookup decoding", () => {
    let plain: TestServer;
    let lookup: TestServer;
    const model = "tiny-chat";
    // Repeats in the prompt give lookup runs to follow; the tiny random model repeats itself too.
    const prompts = ["one two three four one two three four one two three", "Write a list: apple, pear, apple, pear, apple,", "Hello"];

    beforeAll(async () => {
        const file = await buildTinyChatModel();
        plain = await startTestServer({[model]: file}, {parallel: 2, ctxSize: 512});
        lookup = await startTestServer({[model]: file}, {parallel: 2, ctxSize: 512, lookupDecoding: true});
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
    });

    it("ends at a stop sequence where plain decoding does", async () => {
        const full = await reply(plain, prompts[0]!);
        const stop = full!.slice(20, 23);
        expect(await reply(lookup, prompts[0]!, [stop])).toBe(await reply(plain, prompts[0]!, [stop]));
    });
});
