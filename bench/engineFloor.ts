import fs from "node:fs/promises";
import {performance} from "node:perf_hooks";
import {pino} from "pino";
import {ConversationService} from "../src/conversation/conversationService.js";
import {toConversation} from "../src/api/openai-chat/toConversation.js";
import {resolveConfig} from "../src/config.js";
import {LlamaLoadedModel} from "../src/engine/llamaLoadedModel.js";
import {startLlamaRuntime} from "../src/engine/llamaRuntime.js";
import {planContext} from "../src/models/contextPlan.js";
import {inspectGguf} from "../src/models/ggufInspection.js";
import {chatCompletionRequestSchema} from "../src/api/openai-chat/chatCompletionRequest.js";
import type {Floor, FloorOptions} from "./inProcessFloor.js";
import {measurePhase} from "./machineLoad.js";
import {phasePrompts, shortPrompt, warmUpPrompt, warmUpStreams} from "./prompts.js";
import {perSecond} from "./stats.js";

/**
 * The engine floor: the same prompts through chatserve itself, in-process, minus HTTP. A request
 * goes through the chat service as the route hands it over (validated request, template, sequence
 * pool, chatserve's decode loop, detokenizer, reply shaper) and its events are read as the route
 * reads them, but nothing is serialised, written to a socket or parsed by a client. So HTTP decode
 * ÷ this floor is what HTTP + JSON + SSE cost, the "overhead" target, where the other floor
 * (node-llama-cpp's own `evaluate()`, which chatserve's decode loop beats) mixes in the engine.
 */

/** One streamed request to the service: when its first and last text arrived (TTFT as the HTTP phases take it), and its usage. */
async function complete(service: ConversationService, text: string, maxTokens: number, start: number) {
    const request = chatCompletionRequestSchema.parse({
        model: "bench", messages: [{role: "user", content: text}], max_tokens: maxTokens, temperature: 0, stream: true
    });
    const generation = await service.start(toConversation(request), new AbortController().signal);
    let firstAt = Number.NaN;
    let lastAt = Number.NaN;
    try {
        for (;;) {
            const next = await generation.events.next();
            if (next.done === true) {
                const {completionTokens: tokens, promptTokens, cachedTokens} = next.value;
                const ttftMs = (Number.isNaN(firstAt) ? performance.now() : firstAt) - start;
                return {ttftMs, decodeTokPerS: perSecond(tokens - 1, lastAt - firstAt), promptTokens, uncachedTokens: promptTokens - cachedTokens, tokens};
            }
            if (next.value.type === "text" && next.value.text !== "") {
                lastAt = performance.now();
                if (Number.isNaN(firstAt))
                    firstAt = lastAt;
            }
        }
    } finally {
        generation.release();
    }
}

/** Loads the model as the server does (its defaults, the bench's threads) and warms it up. */
export async function openEngineFloor(options: FloorOptions): Promise<Floor> {
    const loadStart = performance.now();
    const defaults = resolveConfig();
    const runtime = await startLlamaRuntime(
        {gpu: options.gpu, threads: options.threads, decodeThreads: options.decodeThreads, flashAttention: options.flashAttention},
        pino({level: "silent"})
    );
    // The context and sequences the server's defaults give this model on this machine.
    const plan = planContext({...await inspectGguf(options.modelPath, runtime.llama), sizeBytes: (await fs.stat(options.modelPath)).size},
        {freeMemoryBytes: runtime.freeMemoryBytes});
    const model = await LlamaLoadedModel.load(runtime, {
        path: options.modelPath, contextSize: plan.contextLength, parallel: plan.parallel, maxQueue: defaults.maxQueue,
        generates: true, tools: false, embeds: false
    });
    const service = new ConversationService({acquire: async () => ({model, release: () => {}})});
    await complete(service, shortPrompt("warm-up"), 8, performance.now());
    for (let index = 0; index < warmUpStreams.count; index++)
        await complete(service, warmUpPrompt(index), warmUpStreams.maxTokens, performance.now());

    return {
        backend: runtime.backend,
        threads: runtime.threads,
        loadMs: performance.now() - loadStart,
        async single(run) {
            const {value, load} = await measurePhase(undefined, () => complete(service, phasePrompts.single(run), options.maxTokens, performance.now()));
            return {ttftMs: value.ttftMs, decodeTokPerS: value.decodeTokPerS, promptTokens: value.promptTokens, generatedTokens: value.tokens, load};
        },
        async long(run) {
            const {value, load} = await measurePhase(undefined, () =>
                complete(service, phasePrompts.long(run, options.longPromptTokens), 4, performance.now()));
            return {ttftMs: value.ttftMs, promptTokens: value.promptTokens, promptTokPerS: perSecond(value.uncachedTokens, value.ttftMs), load};
        },
        async dispose() {
            await model.dispose();
            await runtime.llama.dispose();
        }
    };
}
