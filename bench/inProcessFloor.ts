import {performance} from "node:perf_hooks";
import {getLlama, LlamaLogLevel, resolveChatWrapper, type ChatWrapper, type LlamaContextSequence, type LlamaModel, type Token} from "node-llama-cpp";
import {useDecodeThreads} from "./decodeThreads.js";
import {flashAttentionOption} from "../src/engine/llamaRuntime.js";
import type {FlashAttentionChoice, GpuChoice} from "./args.js";
import {measurePhase, type PhaseLoad} from "./machineLoad.js";
import {phasePrompts, shortPrompt, warmUpPrompt, warmUpStreams} from "./prompts.js";
import {perSecond} from "./stats.js";

/**
 * The floor: the same prompts straight through node-llama-cpp's own `sequence.evaluate()`, no
 * HTTP, no JSON, no SSE, no server (whose decode loop drives node-llama-cpp's native calls itself,
 * src/engine/decodeSteps.ts, so it can beat this floor; engineFloor.ts is the floor with chatserve's
 * own engine). Runs as its own child process (see floorProcess.ts), one phase at a time between
 * the server's, never while the server works.
 */

export type FloorOptions = {
    modelPath: string, gpu: GpuChoice, threads: number, decodeThreads: number, flashAttention: FlashAttentionChoice, maxTokens: number, longPromptTokens: number
};

export type FloorRun = {
    single: {ttftMs: number, decodeTokPerS: number, promptTokens: number, generatedTokens: number},
    long: {ttftMs: number, promptTokPerS: number, promptTokens: number},
    load: {single: PhaseLoad, long: PhaseLoad}
};

export type FloorResult = {backend: string, threads: number, decodeThreads: number, loadMs: number, runs: FloorRun[]};

/** The chat template renders the prompt as the server does, so both evaluate the same tokens. */
function render(model: LlamaModel, wrapper: ChatWrapper, text: string): Token[] {
    const {contextText} = wrapper.generateContextState({chatHistory: [{type: "user", text}, {type: "model", response: []}]});
    return contextText.tokenize(model.tokenizer);
}

/** Evaluates a prompt and greedily generates `maxTokens` tokens (end-of-generation tokens do not stop it). */
async function generate(sequence: LlamaContextSequence, tokens: Token[], maxTokens: number, start: number) {
    let firstAt = Number.NaN;
    let lastAt = Number.NaN;
    let generated = 0;
    for await (const _token of sequence.evaluate(tokens, {temperature: 0})) {
        lastAt = performance.now();
        if (generated++ === 0)
            firstAt = lastAt;
        if (generated >= maxTokens)
            break;
    }
    return {ttftMs: firstAt - start, decodeTokPerS: perSecond(generated - 1, lastAt - firstAt), generated};
}

export type Floor = {
    backend: string, threads: number, loadMs: number,
    single(run: number): Promise<FloorRun["single"] & {load: PhaseLoad}>,
    long(run: number): Promise<FloorRun["long"] & {load: PhaseLoad}>,
    dispose(): Promise<void>
};

/** Loads the model with the server's thread settings and warms it up; then measures one phase per call. */
export async function openFloor(options: FloorOptions): Promise<Floor> {
    const loadStart = performance.now();
    const llama = await getLlama({
        gpu: options.gpu === "cpu" ? false : options.gpu,
        build: "never",
        maxThreads: 0,
        logLevel: LlamaLogLevel.error
    });
    const model = await llama.loadModel({modelPath: options.modelPath});
    const context = await model.createContext({
        contextSize: 4096, sequences: 1, threads: options.threads,
        flashAttention: flashAttentionOption(options.flashAttention)
    });
    // The server's thread settings, so the floor is the best node-llama-cpp's evaluate does here, not a weaker baseline.
    useDecodeThreads(context, options.decodeThreads);
    const sequence = context.getSequence();
    const wrapper = resolveChatWrapper(model);
    await generate(sequence, render(model, wrapper, shortPrompt("warm-up")), 8, performance.now());
    for (let index = 0; index < warmUpStreams.count; index++) {
        await sequence.clearHistory();
        await generate(sequence, render(model, wrapper, warmUpPrompt(index)), warmUpStreams.maxTokens, performance.now());
    }

    return {
        backend: llama.gpu === false ? "CPU" : llama.gpu,
        threads: context.currentThreads,
        loadMs: performance.now() - loadStart,
        async single(run) {
            await sequence.clearHistory();
            const {value, load} = await measurePhase(undefined, async () => {
                const start = performance.now();
                const tokens = render(model, wrapper, phasePrompts.single(run));
                return {...await generate(sequence, tokens, options.maxTokens, start), promptTokens: tokens.length};
            });
            return {ttftMs: value.ttftMs, decodeTokPerS: value.decodeTokPerS, promptTokens: value.promptTokens, generatedTokens: value.generated, load};
        },
        async long(run) {
            await sequence.clearHistory();
            const {value, load} = await measurePhase(undefined, async () => {
                const start = performance.now();
                const tokens = render(model, wrapper, phasePrompts.long(run, options.longPromptTokens));
                const {ttftMs} = await generate(sequence, tokens, 1, start);
                return {ttftMs, promptTokens: tokens.length, promptTokPerS: perSecond(tokens.length, ttftMs)};
            });
            return {...value, load};
        },
        async dispose() {
            await context.dispose();
            await model.dispose();
            await llama.dispose();
        }
    };
}
