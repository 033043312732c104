import request from "supertest";
import {describe, expect, it, vi} from "vitest";
import {endpointOf} from "../../../../src/http/requestMetrics.js";
import {FakeLoader} from "../../support/fakeEngine.js";
import {parsePrometheusText, type Scrape} from "../../support/prometheusText.js";
import {chatRequest, createTestApp, errorOf, MODEL, type TestApp} from "../../support/testApp.js";

async function scrape(t: TestApp, key?: string): Promise<Scrape> {
    const call = request(t.app).get("/metrics");
    const res = await (key == null ? call : call.set("Authorization", `Bearer ${key}`));
    expect(res.status).toBe(200);
    return parsePrometheusText(res.text);
}

/** A request is counted when its response closes, a moment after the client has it all. */
async function scrapeWhen(t: TestApp, ready: (metrics: Scrape) => boolean): Promise<Scrape> {
    return await vi.waitFor(async () => {
        const metrics = await scrape(t);
        if (!ready(metrics))
            throw new Error("not yet counted");
        return metrics;
    });
}

const requests = "chatserve:http_requests_total";

describe("GET /metrics", () => {
    it("answers in Prometheus's text format, with every metric's TYPE", async () => {
        const t = createTestApp();
        const res = await request(t.app).get("/metrics");
        expect(res.status).toBe(200);
        expect(res.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
        const {types} = parsePrometheusText(res.text);
        expect(Object.fromEntries(types)).toMatchObject({
            "chatserve:http_requests_total": "counter",
            "chatserve:num_requests_running": "gauge",
            "chatserve:num_requests_waiting": "gauge",
            "chatserve:time_to_first_token_seconds": "histogram",
            "chatserve:time_per_output_token_seconds": "histogram",
            "chatserve:e2e_request_latency_seconds": "histogram",
            "chatserve:prompt_tokens_total": "counter",
            "chatserve:prompt_tokens_cached_total": "counter",
            "chatserve:generation_tokens_total": "counter",
            "chatserve:prefix_cache_queries_total": "counter",
            "chatserve:prefix_cache_hits_total": "counter",
            "chatserve:request_success_total": "counter",
            "chatserve:kv_cache_usage_perc": "gauge",
            "chatserve:queue_rejections_total": "counter",
            "chatserve:model_load_duration_seconds": "histogram",
            "chatserve:model_load_failures_total": "counter",
            "chatserve:model_unload_duration_seconds": "histogram",
            "chatserve:model_memory_bytes": "gauge",
            "chatserve:spec_decode_draft_token_cost": "gauge",
            "chatserve:spec_decode_draft_pass_cost": "gauge"
        });
    });

    it("counts each API's requests by endpoint and status, and their tokens as their usage says", async () => {
        const t = createTestApp();
        const chat = await request(t.app).post("/v1/chat/completions").send(chatRequest());
        const streamed = await request(t.app).post("/v1/chat/completions").send(chatRequest({stream: true, stream_options: {include_usage: true}}));
        const completion = await request(t.app).post("/v1/completions").send({model: MODEL, prompt: "one two three", max_tokens: 2});
        const messages = await request(t.app).post("/v1/messages").send({model: MODEL, max_tokens: 10, messages: [{role: "user", content: "Hi there"}]});
        const responses = await request(t.app).post("/v1/responses").send({model: MODEL, input: "Hi"});
        expect([chat.status, streamed.status, completion.status, messages.status, responses.status]).toEqual([200, 200, 200, 200, 200]);

        const streamedUsage = JSON.parse(streamed.text.split("\n").filter((line) => line.startsWith("data: {")).at(-1)!.slice(6)).usage;
        const prompt = chat.body.usage.prompt_tokens + streamedUsage.prompt_tokens + completion.body.usage.prompt_tokens
            + messages.body.usage.input_tokens + responses.body.usage.input_tokens;
        const generated = chat.body.usage.completion_tokens + streamedUsage.completion_tokens + completion.body.usage.completion_tokens
            + messages.body.usage.output_tokens + responses.body.usage.output_tokens;

        const metrics = await scrapeWhen(t, (m) => m.value(requests, {endpoint: "/v1/responses", method: "POST", status: "200"}) === 1);
        expect(metrics.value(requests, {endpoint: "/v1/chat/completions", method: "POST", status: "200"})).toBe(2);
        expect(metrics.value(requests, {endpoint: "/v1/completions", method: "POST", status: "200"})).toBe(1);
        expect(metrics.value(requests, {endpoint: "/v1/messages", method: "POST", status: "200"})).toBe(1);
        const model = {model: MODEL};
        expect(metrics.value("chatserve:prompt_tokens_total", model)).toBe(prompt);
        expect(metrics.value("chatserve:prefix_cache_queries_total", model)).toBe(prompt);
        expect(metrics.value("chatserve:prompt_tokens_cached_total", model)).toBe(0);
        expect(metrics.value("chatserve:prefix_cache_hits_total", model)).toBe(0);
        expect(metrics.value("chatserve:generation_tokens_total", model)).toBe(generated);
        // The legacy completion stopped at max_tokens; the others ran through the script.
        expect(metrics.value("chatserve:request_success_total", {model: MODEL, finished_reason: "stop"})).toBe(4);
        expect(metrics.value("chatserve:request_success_total", {model: MODEL, finished_reason: "length"})).toBe(1);
        for (const histogram of ["time_to_first_token_seconds", "time_per_output_token_seconds", "e2e_request_latency_seconds"])
            expect(metrics.value(`chatserve:${histogram}_count`, model), histogram).toBe(5);
        expect(metrics.value("chatserve:time_to_first_token_seconds_bucket", {model: MODEL, le: "+Inf"})).toBe(5);
    });

    it("labels a request by the model an alias stands for, and a name nothing stands for by none", async () => {
        const t = createTestApp({modelAliases: [{name: "gpt-*", model: MODEL}]});
        await request(t.app).post("/v1/chat/completions").send(chatRequest({model: "gpt-4o"})).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest({model: "made-up"})).expect(404);
        const metrics = await scrapeWhen(t, (m) => m.value(requests, {endpoint: "/v1/chat/completions", method: "POST", status: "404"}) === 1);
        expect(metrics.value("chatserve:generation_tokens_total", {model: MODEL})).toBe(3);
        expect(metrics.samples.filter((sample) => sample.labels.model != null).map((sample) => sample.labels.model))
            .not.toContain("gpt-4o");
        expect(metrics.samples.map((sample) => sample.labels.model)).not.toContain("made-up");
    });

    it("counts a full queue's 503s as rejections", async () => {
        const t = createTestApp();
        t.model.script = {pieces: [], busy: true};
        await request(t.app).post("/v1/chat/completions").send(chatRequest()).expect(503);
        await request(t.app).post("/v1/messages").send({model: MODEL, max_tokens: 5, messages: [{role: "user", content: "Hi"}]}).expect(529);
        const metrics = await scrapeWhen(t, (m) => m.value("chatserve:queue_rejections_total", {model: MODEL}) === 2);
        expect(metrics.value(requests, {endpoint: "/v1/chat/completions", method: "POST", status: "503"})).toBe(1);
    });

    it("reads running and waiting requests, KV-cache use and memory from the models at the scrape", async () => {
        const loader = new FakeLoader();
        loader.prepare = (model) => model.memory = {ram: 300, vram: 0};
        const t = createTestApp({loader});
        loader.hold();
        const pending = request(t.app).post("/v1/chat/completions").send(chatRequest({stream: true}));
        const ended = pending.then(() => undefined, () => undefined);
        const loading = await scrapeWhen(t, (m) => m.value("chatserve:num_requests_waiting", {model: MODEL}) === 1);
        expect(loading.value("chatserve:model_memory_bytes", {model: MODEL})).toBeUndefined();

        loader.prepare = () => {};
        loader.model(MODEL).script = {pieces: ["a"], hangUntilAborted: true};
        loader.finishLoads();
        const running = await scrapeWhen(t, (m) => m.value("chatserve:num_requests_running", {model: MODEL}) === 1);
        expect(running.value("chatserve:num_requests_waiting", {model: MODEL})).toBe(0);
        expect(running.value("chatserve:kv_cache_usage_perc", {model: MODEL})).toBe(0.25);
        expect(running.value("chatserve:model_memory_bytes", {model: MODEL})).toBe(300);
        expect(running.value("chatserve:spec_decode_draft_token_cost", {model: MODEL})).toBe(0.15);
        expect(running.value("chatserve:spec_decode_draft_pass_cost", {model: MODEL})).toBe(0.05);
        expect(running.value("chatserve:model_load_duration_seconds_count", {model: MODEL})).toBe(1);
        // The client leaves: its reply ends, and its sequence is free again.
        pending.abort();
        await ended;
        const left = await scrapeWhen(t, (m) => m.value("chatserve:num_requests_running", {model: MODEL}) === 0);
        expect(left.value("chatserve:request_success_total", {model: MODEL, finished_reason: "abort"})).toBe(1);
        // The piece it generated before its client left counts.
        expect(left.value("chatserve:generation_tokens_total", {model: MODEL})).toBe(1);
    });

    it("counts loads and unloads with their durations; an unloaded model's gauges go", async () => {
        const loader = new FakeLoader();
        const t = createTestApp({loader});
        await request(t.app).post(`/v1/models/${MODEL}/load`).expect(200);
        const loaded = await scrape(t);
        expect(loaded.value("chatserve:model_load_duration_seconds_count", {model: MODEL})).toBe(1);
        expect(loaded.value("chatserve:num_requests_running", {model: MODEL})).toBe(0);
        await request(t.app).post(`/v1/models/${MODEL}/unload`).expect(200);
        const unloaded = await scrapeWhen(t, (m) => m.value(requests, {endpoint: "/v1/models/{id}/unload", method: "POST", status: "200"}) === 1);
        expect(unloaded.value("chatserve:model_unload_duration_seconds_count", {model: MODEL})).toBe(1);
        expect(unloaded.find("chatserve:num_requests_running", {model: MODEL})).toEqual([]);
        expect(unloaded.find("chatserve:model_memory_bytes", {model: MODEL})).toEqual([]);
    });

    it("asks for the API key when keys are set, as /v1 does", async () => {
        const t = createTestApp({apiKeys: ["secret"]});
        const refused = await request(t.app).get("/metrics");
        expect(refused.status).toBe(401);
        expect(errorOf(refused.body).code).toBe("invalid_api_key");
        expect((await request(t.app).get("/metrics").set("Authorization", "Bearer wrong")).status).toBe(401);
        const metrics = await scrape(t, "secret");
        expect(metrics.value(requests, {endpoint: "/metrics", method: "GET", status: "401"})).toBe(2);
    });

    it("with --metrics-without-key, answers a scrape with no key (an endpoint picker's) while /v1 still asks for one", async () => {
        const t = createTestApp({apiKeys: ["secret"], metricsWithoutKey: true});
        const res = await request(t.app).get("/metrics");
        expect(res.status).toBe(200);
        expect(res.text).toContain("chatserve:num_requests_waiting");
        expect((await request(t.app).post("/v1/chat/completions").send(chatRequest())).status).toBe(401);
    });

    it("is not there with --no-metrics: 404 in OpenAI's envelope", async () => {
        const t = createTestApp({metrics: false});
        const res = await request(t.app).get("/metrics");
        expect(res.status).toBe(404);
        expect(errorOf(res.body).code).toBe("unknown_url");
        await request(t.app).post("/v1/chat/completions").send(chatRequest()).expect(200);
    });
});

describe("endpoint labels", () => {
    it("are the routes' patterns, never what a client typed", () => {
        expect(endpointOf("POST", "/v1/chat/completions/")).toBe("/v1/chat/completions");
        expect(endpointOf("POST", "/V1/Messages")).toBe("/v1/messages");
        expect(endpointOf("GET", "/v1/models/sub/nested")).toBe("/v1/models/{id}");
        expect(endpointOf("POST", "/v1/models/sub/nested/unload")).toBe("/v1/models/{id}/unload");
        expect(endpointOf("GET", "/v1/responses/resp_123")).toBe("/v1/responses/{id}");
        expect(endpointOf("GET", "/wp-admin/../etc/passwd")).toBe("other");
        expect(endpointOf("GET", "/")).toBe("/");
    });
});
