import {performance} from "node:perf_hooks";
import {phasePrompts, shortPrompt, warmUpPrompt, warmUpStreams} from "./prompts.js";
import {percentile, perSecond} from "./stats.js";
import {decodeTokPerS, streamChat, ttftMs, type ChatMessage, type StreamResult} from "./sse.js";

/** The four HTTP phases of one run, each a function of the run's index (prompts differ per run). */

export type HttpTarget = {url: string, model: string, maxTokens: number};

export type StreamFacts = {
    ttftMs: number,
    promptTokens: number,
    cachedTokens: number,
    completionTokens: number,
    finishReason: string | null,
    contentChunks: number
};

export type SingleStream = StreamFacts & {decodeTokPerS: number, endToEndTokPerS: number};
export type LongPrompt = StreamFacts & {promptTokPerS: number};
export type Concurrent = {
    streams: number,
    wallMs: number,
    completionTokens: number,
    aggregateTokPerS: number,
    ttftP50Ms: number,
    ttftP95Ms: number,
    perStream: Array<StreamFacts & {decodeTokPerS: number}>
};
export type Conversation = {turn1: StreamFacts, turn2: StreamFacts, turn2OverTurn1Ttft: number};

function facts(result: StreamResult): StreamFacts {
    return {
        ttftMs: ttftMs(result),
        promptTokens: result.usage?.prompt_tokens ?? Number.NaN,
        cachedTokens: result.usage?.prompt_tokens_details?.cached_tokens ?? 0,
        completionTokens: result.usage?.completion_tokens ?? Number.NaN,
        finishReason: result.finishReason,
        contentChunks: result.contentChunks
    };
}

/** Loads the model (its first request) and warms the path (prompts.ts); returns how long the first request took. */
export async function warmUp(target: HttpTarget): Promise<number> {
    const start = performance.now();
    await streamChat(target.url, target.model, [{role: "user", content: shortPrompt("warm-up")}], 8);
    const firstRequestMs = performance.now() - start;
    for (let index = 0; index < warmUpStreams.count; index++)
        await streamChat(target.url, target.model, [{role: "user", content: warmUpPrompt(index)}], warmUpStreams.maxTokens);
    return firstRequestMs;
}

/** 1. One stream, short prompt: TTFT and decode tok/s. */
export async function singleStream(target: HttpTarget, run: number): Promise<SingleStream> {
    const result = await streamChat(target.url, target.model, [{role: "user", content: phasePrompts.single(run)}], target.maxTokens);
    const completion = result.usage?.completion_tokens ?? Number.NaN;
    return {
        ...facts(result),
        decodeTokPerS: decodeTokPerS(result),
        endToEndTokPerS: perSecond(completion, result.endedAt - result.startedAt)
    };
}

/**
 * 1b. The same kind of request without streaming: one JSON reply, no per-token events. Against
 * singleStream's endToEndTokPerS it shows what delivering every token as it comes costs.
 */
export async function singleReply(target: HttpTarget, run: number): Promise<{completionTokens: number, endToEndTokPerS: number}> {
    const startedAt = performance.now();
    const response = await fetch(`${target.url}/chat/completions`, {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({
            model: target.model, messages: [{role: "user", content: phasePrompts.reply(run)}], max_tokens: target.maxTokens, temperature: 0
        })
    });
    if (!response.ok)
        throw new Error(`HTTP ${response.status} from /chat/completions: ${await response.text()}`);
    const reply = await response.json() as {usage?: {completion_tokens?: number}};
    const completionTokens = reply.usage?.completion_tokens ?? Number.NaN;
    return {completionTokens, endToEndTokPerS: perSecond(completionTokens, performance.now() - startedAt)};
}

/**
 * 2. Prompt processing: a long prompt, unique from its first word, so only the chat template's
 * opening can come from the cache. Speed = uncached prompt tokens ÷ TTFT.
 */
export async function longPrompt(target: HttpTarget, run: number, tokens: number): Promise<LongPrompt> {
    const content = phasePrompts.long(run, tokens);
    const result = await streamChat(target.url, target.model, [{role: "user", content}], 4);
    const stream = facts(result);
    return {...stream, promptTokPerS: perSecond(stream.promptTokens - stream.cachedTokens, stream.ttftMs)};
}

/** 3. `streams` requests at once, each with its own prompt: aggregate tok/s and TTFT percentiles. */
export async function concurrent(target: HttpTarget, run: number, streams: number): Promise<Concurrent> {
    const start = performance.now();
    const results = await Promise.all(Array.from({length: streams}, (_, index) =>
        streamChat(target.url, target.model, [{role: "user", content: phasePrompts.stream(run, index)}], target.maxTokens)));
    const wallMs = Math.max(...results.map((result) => result.endedAt)) - start;
    const completionTokens = results.reduce((sum, result) => sum + (result.usage?.completion_tokens ?? 0), 0);
    const ttfts = results.map(ttftMs);
    return {
        streams,
        wallMs,
        completionTokens,
        aggregateTokPerS: perSecond(completionTokens, wallMs),
        ttftP50Ms: percentile(ttfts, 50),
        ttftP95Ms: percentile(ttfts, 95),
        perStream: results.map((result) => ({...facts(result), decodeTokPerS: decodeTokPerS(result)}))
    };
}

/**
 * 4. A two-turn conversation under a long system prompt. Turn 2 resends the system prompt, turn 1
 * and turn 1's reply, plus a new question: the prefix cache should make its TTFT much shorter.
 */
export async function conversation(target: HttpTarget, run: number, systemTokens: number): Promise<Conversation> {
    const system: ChatMessage = {role: "system", content: phasePrompts.system(run, systemTokens)};
    const question1: ChatMessage = {role: "user", content: phasePrompts.question(run, 1)};
    const turn1 = await streamChat(target.url, target.model, [system, question1], target.maxTokens);

    const question2: ChatMessage = {role: "user", content: phasePrompts.question(run, 2)};
    const turn2 = await streamChat(target.url, target.model,
        [system, question1, {role: "assistant", content: turn1.content}, question2], target.maxTokens);

    return {turn1: facts(turn1), turn2: facts(turn2), turn2OverTurn1Ttft: ttftMs(turn2) / ttftMs(turn1)};
}
