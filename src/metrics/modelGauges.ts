import {Gauge, type Registry} from "prom-client";
import type {ModelOccupancy} from "../models/modelOccupancy.js";

/**
 * The per-model gauges, computed from the registry's occupancy when Prometheus scrapes (nothing
 * keeps them up to date in between). A model that has gone has no series: its gauges are reset at
 * each scrape before the models there now are counted.
 *
 * - running: requests holding one of its sequences (vLLM's num_requests_running);
 * - waiting: requests queued for a sequence, or for the model to get memory and load;
 * - KV-cache usage: the share of its context's cells holding tokens, conversations kept for reuse included;
 * - memory: what it holds, weights and contexts, as /v1/models's memory_bytes says;
 * - draft token cost: what its decode loop measured a drafted token to cost (why drafts are as long as they are).
 */
export function registerModelGauges(registry: Registry, prefix: string, occupancy: () => ModelOccupancy[]): void {
    const gauge = (name: string, help: string, value: (facts: ModelFigures) => number | undefined) => new Gauge({
        name: prefix + name, help, labelNames: ["model"], registers: [registry],
        collect() {
            this.reset();
            for (const [model, facts] of summarize(occupancy())) {
                const figure = value(facts);
                if (figure != null)
                    this.set({model}, figure);
            }
        }
    });
    gauge("num_requests_running", "Requests holding a sequence of the model (generating, or evaluating their prompt).", (facts) => facts.running);
    gauge("num_requests_waiting", "Requests waiting for a sequence of the model, or for the model to load.", (facts) => facts.waiting);
    gauge("kv_cache_usage_perc", "Share of the model's KV-cache cells holding tokens (1 = all), cached conversations included.", (facts) => facts.kvCacheUsage);
    gauge("model_memory_bytes", "Memory a loaded model holds (weights, KV cache and buffers; RAM and VRAM together).", (facts) => facts.memoryBytes);
    gauge("spec_decode_draft_token_cost", "What a drafted token costs as a share of a plain decoding step, as the model's decode loop measured it (or --draft-token-cost): drafts are as long as pays at this cost.", (facts) => facts.draftTokenCost);
    gauge("spec_decode_draft_pass_cost", "What a drafted pass costs beyond its tokens (mostly the slower plain step after it), as a share of a plain decoding step, as the model's decode loop measured it (0 with --draft-token-cost): a draft is sent only if it is expected to save more than its tokens and its pass cost.", (facts) => facts.draftPassCost);
}

type ModelFigures = {running: number, waiting: number, kvCacheUsage?: number, memoryBytes?: number, draftTokenCost?: number, draftPassCost?: number};

/** One model id's figures (a model being freed and its next load added up); a scrape reads them once per gauge, cheap as it is. */
function summarize(occupancy: readonly ModelOccupancy[]): Map<string, ModelFigures> {
    const byModel = new Map<string, ModelFigures>();
    for (const entry of occupancy) {
        const facts = byModel.get(entry.id) ?? {running: 0, waiting: 0};
        if (entry.activity != null) {
            facts.running += entry.activity.running;
            facts.waiting += entry.activity.waiting;
            facts.kvCacheUsage = entry.activity.kvCacheUsage;
            facts.draftTokenCost = entry.activity.draftTokenCost;
            facts.draftPassCost = entry.activity.draftPassCost;
        } else if (entry.state === "waiting" || entry.state === "loading")
            // Every request holding a model that is not loaded yet waits for it.
            facts.waiting += entry.holds;
        if (entry.state === "loaded")
            facts.memoryBytes = (facts.memoryBytes ?? 0) + entry.memoryBytes;
        byModel.set(entry.id, facts);
    }
    return byModel;
}
