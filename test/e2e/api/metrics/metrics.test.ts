import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {parsePrometheusText, type Scrape} from "../../../http/support/prometheusText.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/**
 * GET /metrics on a real server and a real (tiny) model: the token counters read back what the
 * replies' usage said, request by request, and the model's gauges what /v1/models says of it.
 */
describe("Prometheus metrics on a tiny GGUF model", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {apiKeys: ["scrape-key"]});
    });
    afterAll(async () => server?.stop());

    async function scrape(): Promise<Scrape> {
        const res = await fetch(new URL("/metrics", server.url), {headers: {authorization: "Bearer scrape-key"}});
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
        return parsePrometheusText(await res.text());
    }

    it("counts the tokens the replies' usage reports, cached ones included, and the load", async () => {
        const client = server.client("scrape-key");
        const messages = [{role: "user" as const, content: "Tell me about the cat on the mat."}];
        const usages: Array<{prompt: number, cached: number, completion: number}> = [];

        for (let turn = 0; turn < 2; turn++) {
            // The second, same prompt finds the first one's tokens in its sequence.
            const reply = await client.chat.completions.create({model, messages, max_tokens: 8, temperature: 0});
            const usage = reply.usage!;
            usages.push({prompt: usage.prompt_tokens, cached: usage.prompt_tokens_details?.cached_tokens ?? 0, completion: usage.completion_tokens});
        }
        const stream = await client.chat.completions.create({model, messages, max_tokens: 6, stream: true, stream_options: {include_usage: true}});
        for await (const chunk of stream) {
            if (chunk.usage != null)
                usages.push({prompt: chunk.usage.prompt_tokens, cached: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0, completion: chunk.usage.completion_tokens});
        }
        const completion = await client.completions.create({model, prompt: "The cat", max_tokens: 5, temperature: 0});
        usages.push({prompt: completion.usage!.prompt_tokens, cached: 0, completion: completion.usage!.completion_tokens});
        expect(usages).toHaveLength(4);
        expect(usages[1]!.cached).toBeGreaterThan(0);

        const sum = (key: "prompt" | "cached" | "completion") => usages.reduce((total, usage) => total + usage[key], 0);
        const metrics = await scrape();
        const labels = {model};
        expect(metrics.value("chatserve:prompt_tokens_total", labels)).toBe(sum("prompt"));
        expect(metrics.value("chatserve:prompt_tokens_cached_total", labels)).toBe(sum("cached"));
        expect(metrics.value("chatserve:prefix_cache_hits_total", labels)).toBe(sum("cached"));
        expect(metrics.value("chatserve:prefix_cache_queries_total", labels)).toBe(sum("prompt"));
        expect(metrics.value("chatserve:generation_tokens_total", labels)).toBe(sum("completion"));
        const finished = metrics.find("chatserve:request_success_total", labels).reduce((total, sample) => total + sample.value, 0);
        expect(finished).toBe(4);
        expect(metrics.value("chatserve:time_to_first_token_seconds_count", labels)).toBe(4);
        expect(metrics.value("chatserve:e2e_request_latency_seconds_count", labels)).toBe(4);
        expect(metrics.value("chatserve:http_requests_total", {endpoint: "/v1/chat/completions", method: "POST", status: "200"})).toBe(3);
        expect(metrics.value("chatserve:http_requests_total", {endpoint: "/v1/completions", method: "POST", status: "200"})).toBe(1);
        expect(metrics.value("chatserve:model_load_duration_seconds_count", labels)).toBe(1);
    });

    it("reads the loaded model's memory, KV-cache use and requests at the scrape", async () => {
        const listing = await (await fetch(new URL(`${server.url}/models/${model}`), {headers: {authorization: "Bearer scrape-key"}})).json() as {memory_bytes: number};
        const metrics = await scrape();
        expect(metrics.value("chatserve:model_memory_bytes", {model})).toBe(listing.memory_bytes);
        expect(metrics.value("chatserve:num_requests_running", {model})).toBe(0);
        expect(metrics.value("chatserve:num_requests_waiting", {model})).toBe(0);
        // The replies' conversations stay in their sequences for the next turn.
        const usage = metrics.value("chatserve:kv_cache_usage_perc", {model})!;
        expect(usage).toBeGreaterThan(0);
        expect(usage).toBeLessThanOrEqual(1);
        // The process's own, from prom-client's default collectors.
        expect(metrics.types.get("process_cpu_user_seconds_total")).toBe("counter");
    });

    it("asks for the key", async () => {
        expect((await fetch(new URL("/metrics", server.url))).status).toBe(401);
    });
});
