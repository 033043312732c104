import {performance} from "node:perf_hooks";
import {fileURLToPath} from "node:url";
import {getLlama, LlamaLogLevel, resolveChatWrapper, type ChatWrapper, type LlamaContextSequence, type LlamaModel, type Token} from "node-llama-cpp";
import {useDecodeThreads} from "../src/engine/decodeThreads.js";
import {flashAttentionOption} from "../src/engine/llamaRuntime.js";
import type {FlashAttentionChoice, GpuChoice} from "./args.js";
import {measurePhase, type PhaseLoad} from "./machineLoad.js";
import {phasePrompts, shortPrompt} from "./prompts.js";
import {perSecond} from "./stats.js";

/**
 * The floor: the same prompts straight through node-llama-cpp, no HTTP, no JSON, no SSE, no
 * server. Runs as its own child process (see floorProcess.ts), never while the server runs.
 */

export type FloorOptions = {
    modelPath: string, gpu: GpuChoice, threads: number, decodeThreads: number, flashAttention: FlashAttentionChoice, runs: number, maxTokens: number, longPromptTokens: number
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

export async function measureFloor(options: FloorOptions): Promise<FloorResult> {
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
    // The server's thread settings, so the floor is the best this engine does here, not a weaker baseline.
    useDecodeThreads(context, options.decodeThreads);
    const sequence = context.getSequence();
    const wrapper = resolveChatWrapper(model);
    await generate(sequence, render(model, wrapper, shortPrompt("warm-up")), 8, performance.now());
    const loadMs = performance.now() - loadStart;

    const runs: FloorRun[] = [];
    for (let run = 1; run <= options.runs; run++) {
        await sequence.clearHistory();
        const single = await measurePhase(undefined, async () => {
            const start = performance.now();
            const tokens = render(model, wrapper, phasePrompts.single(run));
            return {...await generate(sequence, tokens, options.maxTokens, start), promptTokens: tokens.length};
        });
        await sequence.clearHistory();
        const long = await measurePhase(undefined, async () => {
            const start = performance.now();
            const tokens = render(model, wrapper, phasePrompts.long(run, options.longPromptTokens));
            const {ttftMs} = await generate(sequence, tokens, 1, start);
            return {ttftMs, promptTokens: tokens.length, promptTokPerS: perSecond(tokens.length, ttftMs)};
        });
        runs.push({
            single: {
                ttftMs: single.value.ttftMs,
                decodeTokPerS: single.value.decodeTokPerS,
                promptTokens: single.value.promptTokens,
                generatedTokens: single.value.generated
            },
            long: long.value,
            load: {single: single.load, long: long.load}
        });
    }

    const result = {backend: llama.gpu === false ? "CPU" : llama.gpu, threads: context.currentThreads, decodeThreads: options.decodeThreads, loadMs, runs};
    await context.dispose();
    await model.dispose();
    await llama.dispose();
    return result;
}

/** Child entry: options as JSON in argv[2], the result as one `FLOOR_RESULT {…}` line on stdout. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const options = JSON.parse(process.argv[2] ?? "{}") as FloorOptions;
    measureFloor(options).then(
        (result) => process.stdout.write(`FLOOR_RESULT ${JSON.stringify(result)}\n`),
        (error: unknown) => {
            console.error(error);
            process.exit(1);
        }
    );
}
