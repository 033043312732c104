import {describe, expect, it} from "vitest";
import {ServerMetrics} from "../../../src/metrics/serverMetrics.js";
import {parsePrometheusText} from "../../http/support/prometheusText.js";

const finished = {endpoint: "/v1/chat/completions", method: "POST", status: 200, model: "m", clientLeft: false, arrivedAt: 0, endedAt: 10};
const usage = {finishReason: "stop" as const, promptTokens: 10, cachedTokens: 0, completionTokens: 20};

describe("ServerMetrics' speculative decoding counters", () => {
    it("count drafted and accepted tokens by model and source, as each generation's result says", async () => {
        const metrics = new ServerMetrics(() => []);
        metrics.requestFinished({...finished, usage: {...usage, drafts: {prediction: {drafted: 30, accepted: 24}, lookup: {drafted: 5, accepted: 1}}}});
        metrics.requestFinished({...finished, usage: {...usage, drafts: {prediction: {drafted: 10, accepted: 10}}}});
        metrics.requestFinished({...finished, usage});
        const scrape = parsePrometheusText((await metrics.scrape()).text);
        expect(scrape.value("chatserve:spec_decode_num_draft_tokens_total", {model: "m", source: "prediction"})).toBe(40);
        expect(scrape.value("chatserve:spec_decode_num_accepted_tokens_total", {model: "m", source: "prediction"})).toBe(34);
        expect(scrape.value("chatserve:spec_decode_num_draft_tokens_total", {model: "m", source: "lookup"})).toBe(5);
        expect(scrape.value("chatserve:spec_decode_num_accepted_tokens_total", {model: "m", source: "lookup"})).toBe(1);
    });
});
