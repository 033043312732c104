import {collectDefaultMetrics, Counter, Histogram, Registry} from "prom-client";
import type {FinishReason, GenerationResult} from "../engine/generationEvents.js";
import type {ModelLifecycleObserver} from "../models/registrySettings.js";
import type {ModelOccupancy} from "../models/modelOccupancy.js";
import {registerModelGauges} from "./modelGauges.js";

/** vLLM's names after chatserve's prefix, so that dashboards written for vLLM need only the prefix changed. */
const prefix = "chatserve:";

/** vLLM's buckets, so that quantiles compare across the two servers. */
const firstTokenBuckets = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const perOutputTokenBuckets = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const requestLatencyBuckets = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
/** A model's load reads its whole file: from a tenth of a second (cached, tiny) to minutes (large, cold disk). */
const loadBuckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320];
const unloadBuckets = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** vLLM's finished_reason values, and OpenAI's name for a reply that is tool calls. */
const finishedReasons: Record<FinishReason, string> = {stop: "stop", length: "length", toolCalls: "tool_calls", abort: "abort"};

const generatingEndpoints = new Set(["/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages"]);

/** How one HTTP request ended, as the metrics middleware (http/requestMetrics.ts) saw it. */
export type FinishedRequest = {
    /** A known route's pattern ("/v1/models/{id}"), else "other": a label must never hold what a client typed. */
    endpoint: string,
    method: string,
    status: number,
    /** The id of the model it named (never an alias), when that model exists. */
    model?: string,
    /** Its generation's result (several prompts: summed), when it generated. */
    usage?: GenerationResult,
    /** The error code it was answered with, if any. */
    errorCode?: string,
    /** Its client left before the response ended. */
    clientLeft: boolean,
    /** `performance.now()` when it arrived and when its response ended. */
    arrivedAt: number,
    endedAt: number
};

/**
 * Every metric of one server, on a registry of its own (tests start many apps in one process; the
 * global registry would mix them). Counters and histograms change once per request, when it ends;
 * gauges are read from the registry at each scrape. Nothing here runs per token.
 */
export class ServerMetrics {
    public readonly registry = new Registry();
    /** The lifecycle observer the model registry tells of loads and unloads. */
    public readonly lifecycle: ModelLifecycleObserver;
    private readonly requests = this.counter("http_requests_total", "HTTP requests, by endpoint, method and status code (499: the client left first).", ["endpoint", "method", "status"]);
    private readonly firstToken = this.histogram("time_to_first_token_seconds", "Time from a request's arrival to its reply's first token (model load, queue and prompt included).", firstTokenBuckets);
    private readonly perOutputToken = this.histogram("time_per_output_token_seconds", "Per request: time from its first token to its last, over the tokens after the first.", perOutputTokenBuckets);
    private readonly latency = this.histogram("e2e_request_latency_seconds", "Time from a generating request's arrival to the end of its response.", requestLatencyBuckets);
    private readonly promptTokens = this.counter("prompt_tokens_total", "Prompt tokens of finished generations, cached ones included.", ["model"]);
    private readonly cachedPromptTokens = this.counter("prompt_tokens_cached_total", "Prompt tokens reused from a sequence's cache instead of evaluated.", ["model"]);
    private readonly generationTokens = this.counter("generation_tokens_total", "Tokens generated.", ["model"]);
    private readonly cacheQueries = this.counter("prefix_cache_queries_total", "Prefix cache queries, in prompt tokens looked up.", ["model"]);
    private readonly cacheHits = this.counter("prefix_cache_hits_total", "Prefix cache hits, in prompt tokens found cached.", ["model"]);
    private readonly successes = this.counter("request_success_total", "Generating requests that ended, by why their reply ended.", ["model", "finished_reason"]);
    // vLLM's speculative decoding counters, by where the drafts came from (engine/speculation/): a prediction, lookup, or the lookup pool.
    private readonly draftTokens = this.counter("spec_decode_num_draft_tokens_total", "Drafted tokens sent for verification, by source (prediction: the request's Predicted Output; lookup: the prompt and the reply so far; pool: what the model read and wrote for earlier requests; draft: the model's draft model).", ["model", "source"]);
    private readonly acceptedDraftTokens = this.counter("spec_decode_num_accepted_tokens_total", "Drafted tokens the model's own sampling accepted, by source.", ["model", "source"]);
    private readonly rejections = this.counter("queue_rejections_total", "Requests refused because the queue for a sequence (or for the model's load) was full: 503 server_busy (529 on /v1/messages).", ["model"]);
    private readonly loads = this.histogram("model_load_duration_seconds", "Model loads that succeeded, and how long each took.", loadBuckets);
    private readonly loadFailures = this.counter("model_load_failures_total", "Model loads that failed.", ["model"]);
    private readonly unloads = this.histogram("model_unload_duration_seconds", "Model unloads, and how long freeing each one's memory took.", unloadBuckets);

    /**
     * `occupancy`: the model registry's, read at each scrape for the per-model gauges.
     * `processMetrics`: prom-client's own collectors (CPU, memory, event loop lag, GC) too; they start
     * timers and observers that live as long as the process, so only a real server asks for them.
     */
    public constructor(occupancy: () => ModelOccupancy[], {processMetrics = false}: {processMetrics?: boolean} = {}) {
        registerModelGauges(this.registry, prefix, occupancy);
        if (processMetrics)
            // Its event-loop delay monitor wakes the main thread at this interval: prom-client's 10 ms is 100
            // wakeups a second beside llama.cpp's threads on the same cores; a lag finer than 100 ms tells nothing here.
            collectDefaultMetrics({register: this.registry, eventLoopMonitoringPrecision: 100});
        this.lifecycle = {
            loaded: (model, seconds) => this.loads.observe({model}, seconds),
            loadFailed: (model) => this.loadFailures.inc({model}),
            unloaded: (model, seconds) => this.unloads.observe({model}, seconds)
        };
    }

    /** The text exposition format Prometheus scrapes, and its content type. */
    public async scrape(): Promise<{contentType: string, text: string}> {
        return {contentType: this.registry.contentType, text: await this.registry.metrics()};
    }

    public requestFinished(request: FinishedRequest): void {
        this.requests.inc({endpoint: request.endpoint, method: request.method, status: String(request.status)});
        const {model} = request;
        // 503 server_busy; /v1/messages answers it as Anthropic's 529 overloaded_error.
        if (request.errorCode === "server_busy")
            this.rejections.inc({model: model ?? ""});
        if (model == null)
            return;
        if (request.usage != null)
            this.generationFinished(model, request.usage, request);
        else if (request.clientLeft && generatingEndpoints.has(request.endpoint))
            // A client that left before its generation began (while its prompt was read or queued): no tokens to count.
            this.successes.inc({model, finished_reason: "abort"});
    }

    private generationFinished(model: string, usage: GenerationResult, {arrivedAt, endedAt}: FinishedRequest): void {
        const labels = {model};
        this.promptTokens.inc(labels, usage.promptTokens);
        this.cachedPromptTokens.inc(labels, usage.cachedTokens);
        this.cacheQueries.inc(labels, usage.promptTokens);
        this.cacheHits.inc(labels, usage.cachedTokens);
        this.generationTokens.inc(labels, usage.completionTokens);
        this.successes.inc({model, finished_reason: finishedReasons[usage.finishReason]});
        for (const [source, counts] of Object.entries(usage.drafts ?? {})) {
            this.draftTokens.inc({model, source}, counts.drafted);
            this.acceptedDraftTokens.inc({model, source}, counts.accepted);
        }
        this.latency.observe(labels, (endedAt - arrivedAt) / 1000);
        const firstTokenAt = usage.timing?.firstTokenAt;
        if (firstTokenAt == null)
            return;
        this.firstToken.observe(labels, (firstTokenAt - arrivedAt) / 1000);
        // As vLLM first defined it: one observation per request, not per token (nothing on the decode path).
        if (usage.completionTokens > 1)
            this.perOutputToken.observe(labels, (usage.timing!.endedAt - firstTokenAt) / 1000 / (usage.completionTokens - 1));
    }

    private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
        return new Counter({name: prefix + name, help, labelNames, registers: [this.registry]});
    }

    private histogram(name: string, help: string, buckets: number[]): Histogram<"model"> {
        return new Histogram({name: prefix + name, help, labelNames: ["model"], buckets, registers: [this.registry]});
    }
}
