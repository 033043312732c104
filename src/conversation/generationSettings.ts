import {randomInt} from "node:crypto";
import type {GenerationOptions} from "../engine/generationOptions.js";
import {BadRequestError, ContextLengthExceededError} from "../errors.js";
import type {SamplingDefaults} from "../models/modelSettings.js";
import type {Conversation} from "./conversation.js";
import {toLogitBias} from "./logitBias.js";

/** What a request says of its reply's length, stop sequences and sampling (a conversation's, or legacy completions'). */
export type GenerationRequest = Pick<Conversation, "maxTokens" | "stop" | "sampling" | "promptPath">;

/**
 * A request's length, stops and sampling → generation options, with the defaults filled in here and
 * only here: the request's own field, else the model's default from chatserve.json (`modelDefaults`), else
 * OpenAI's (node-llama-cpp's own temperature default is 0; OpenAI's is 1).
 *
 * The reply gets the room the prompt leaves: a `max_tokens` larger than that room is cut to it, and
 * the reply then ends with finish_reason "length", as llama-server and Ollama do. Coding agents
 * send a fixed 8,000 to 32,000 whatever the prompt, and refusing prompt + max_tokens > context
 * refused almost every one of their requests. Only a prompt that does not fit by itself is a 400.
 *
 * Without a `seed`, each request gets a random one, as at OpenAI: node-llama-cpp's own default is
 * the current second, so requests sent within one second sampled the same reply.
 */
export function toGenerationOptions(
    request: GenerationRequest,
    promptTokens: number,
    contextLength: number,
    {defaultMaxTokens, modelDefaults = {}, vocabularySize}: {defaultMaxTokens?: number, modelDefaults?: SamplingDefaults, vocabularySize?: number} = {}
): GenerationOptions {
    const {promptPath} = request;
    if (promptTokens === 0)
        throw new BadRequestError(`The ${promptPath} is empty: this model adds no beginning-of-text token, so there is nothing to generate after.`,
            {param: promptPath, code: "invalid_value"});
    const room = contextLength - promptTokens;
    if (room < 1)
        throw ContextLengthExceededError.forPrompt(contextLength, promptTokens, promptPath);
    const {sampling} = request;
    const logitBias = toLogitBias(sampling.logitBias, vocabularySize);

    return {
        maxTokens: Math.min(request.maxTokens ?? defaultMaxTokens ?? room, room),
        stop: request.stop,
        sampling: {
            temperature: sampling.temperature ?? modelDefaults.temperature ?? 1,
            topP: sampling.topP ?? modelDefaults.topP ?? 1,
            seed: samplerSeed(sampling.seed),
            presencePenalty: sampling.presencePenalty ?? 0,
            frequencyPenalty: sampling.frequencyPenalty ?? 0,
            // Only Ollama's options name these in a request; otherwise they come from the model's settings alone.
            ...optionalSetting("topK", sampling.topK ?? modelDefaults.topK),
            ...optionalSetting("minP", sampling.minP ?? modelDefaults.minP),
            ...optionalSetting("repeatPenalty", sampling.repeatPenalty ?? modelDefaults.repeatPenalty),
            ...(logitBias == null ? {} : {logitBias})
        },
        format: {type: "text"}
    };
}

function optionalSetting<K extends string>(key: K, value: number | undefined): {[key in K]?: number} {
    return value == null ? {} : {[key]: value} as {[key in K]: number};
}

/**
 * llama.cpp's seed has 32 bits, and there 0xFFFFFFFF means "draw one at random"; OpenAI's is any
 * integer. A request's seed is folded into [0, 2^32 − 2], so every seed, negative ones included,
 * gives a reproducible reply of its own (seeds 2^32 − 1 apart share one). Passed as they came,
 * 2^32 − 1 sampled differently on every request and all negative seeds sampled as 0.
 */
const seedRange = 2 ** 32 - 1;

function samplerSeed(seed: number | null | undefined): number {
    return seed == null ? randomInt(seedRange) : ((seed % seedRange) + seedRange) % seedRange;
}

/**
 * The options of choice `index` of several (`n`): its own seed, the next after the request's, so
 * choices differ when sampling is random and the whole request still reproduces with its seed.
 */
export function choiceOptions<T extends GenerationOptions>(options: T, index: number): T {
    return index === 0 ? options : {...options, sampling: {...options.sampling, seed: (options.sampling.seed + index) % seedRange}};
}
