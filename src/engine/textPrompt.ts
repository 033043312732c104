import {setImmediate as nextTurn} from "node:timers/promises";
import type {LlamaModel, Token} from "node-llama-cpp";
import {BadRequestError, ContextLengthExceededError} from "../errors.js";
import type {PreparedPrompt} from "./preparedPrompt.js";

/**
 * A raw-text prompt (legacy completions): no chat template. Special-token text in it is parsed
 * as the special token, as llama-server does, because IDE plugins render fill-in-the-middle
 * prompts themselves (`<|fim_prefix|>…`). BOS is added when the model's vocabulary wants it.
 */
export function prepareTextPrompt(model: LlamaModel, text: string): PreparedPrompt {
    return {tokens: [...bos(model), ...model.tokenize(text, true)], stopTokens: [], stopStrings: []};
}

/**
 * A prompt the client tokenized itself (legacy completions with token ids, as evaluation harnesses
 * send them): evaluated as it came, nothing added, as llama-server and vLLM do. `text` is what the
 * tokens spell, special tokens included, for `echo`.
 *
 * One that cannot fit the context is refused before it is spelled: detokenizing is synchronous
 * native work, and millions of ids fit under the body limit.
 */
export function prepareTokenPrompt(model: LlamaModel, tokens: readonly number[], contextLength: number, param: string): PreparedPrompt & {text: string} {
    if (tokens.length >= contextLength)
        throw ContextLengthExceededError.forPrompt(contextLength, tokens.length, param);
    refuseTokensOutsideVocabulary(model, tokens, param);
    const prompt = [...tokens] as Token[];
    return {tokens: prompt, stopTokens: [], stopStrings: [], exactTokens: true, text: model.detokenize(prompt, true)};
}

/** Token ids a client sent must be the model's: llama.cpp would read out of its tables (or abort) on others. */
export function refuseTokensOutsideVocabulary(model: LlamaModel, tokens: readonly number[], param: string): void {
    const vocabularySize = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
    const foreign = tokens.find((token) => !Number.isInteger(token) || token < 0 || token >= vocabularySize);
    if (foreign != null)
        throw new BadRequestError(`Invalid '${param}': token id ${foreign} is not in this model's vocabulary.`, {param, code: "invalid_value"});
}

/**
 * A fill-in-the-middle prompt framed with the model's own FIM tokens, in llama.cpp's order:
 * `<PRE>prefix<SUF>suffix<MID>`; the model then writes the middle. Null when the GGUF has no FIM tokens.
 *
 * Prefix and suffix share the context less the completion's tokens. Where they do not fit,
 * the text nearest the cursor stays, as llama-server's infill keeps it: the end of the prefix and
 * the start of the suffix. IDE plugins send whole files and want a completion, not a 400. A
 * completion that leaves the texts no room at all is refused instead: a middle written without
 * either side would be no completion.
 */
export async function prepareInfillPrompt(
    model: LlamaModel, prefix: string, suffix: string,
    {contextLength, completionTokens, lengthParam = "max_tokens"}: {contextLength: number, completionTokens: number, lengthParam?: string}
): Promise<PreparedPrompt | null> {
    const {prefix: pre, suffix: suf, middle: mid} = model.tokens.infill;
    if (pre == null || suf == null || mid == null)
        return null;

    const start = bos(model);
    // The texts get what the completion and the framing (BOS where the model adds it, <PRE>, <SUF>, <MID>) leave.
    const budget = contextLength - completionTokens - start.length - 3;
    if (budget <= 0 && prefix + suffix !== "")
        throw new ContextLengthExceededError(contextLength, {
            overflow: `you requested ${completionTokens} tokens for the completion, which leaves no room for the prompt and suffix`,
            remedy: lengthParam, param: lengthParam
        });
    const before = await edgeTokens(model, prefix, budget, "end");
    const after = await edgeTokens(model, suffix, budget, "start");
    const kept = shareInfillRoom(before.length, after.length, budget);
    const tokens = [...start, pre, ...before.slice(before.length - kept.prefix), suf, ...after.slice(0, kept.suffix), mid];
    return {tokens, stopTokens: [], stopStrings: []};
}

/**
 * How many tokens of the prefix (its end) and of the suffix (its start) fit `budget` together: each
 * gets its share where both are longer (the prefix three quarters, as llama-server splits it), and
 * either gets what the other leaves.
 */
export function shareInfillRoom(prefixTokens: number, suffixTokens: number, budget: number): {prefix: number, suffix: number} {
    if (prefixTokens + suffixTokens <= budget)
        return {prefix: prefixTokens, suffix: suffixTokens};
    const suffix = Math.min(suffixTokens, Math.max(Math.floor(budget / 4), budget - prefixTokens));
    return {prefix: Math.min(prefixTokens, budget - suffix), suffix};
}

/**
 * At least `count` tokens from one edge of the text (all of it when it has fewer). A file can be
 * megabytes and tokenizing is synchronous, so the text is taken from that edge a little at a time
 * (about 4 characters a token, doubled until enough), yielding to other streams between tries.
 */
async function edgeTokens(model: LlamaModel, text: string, count: number, edge: "start" | "end"): Promise<Token[]> {
    for (let characters = Math.max(64, count * 4); ; characters *= 2) {
        const part = edge === "end" ? lastCharacters(text, characters) : firstCharacters(text, characters);
        const tokens = model.tokenize(part, false);
        if (tokens.length >= count || part.length === text.length)
            return tokens;
        await nextTurn();
    }
}

/** The text's last `count` characters, never from inside a surrogate pair. */
function lastCharacters(text: string, count: number): string {
    if (text.length <= count)
        return text;
    const start = text.length - count;
    return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

/** The text's first `count` characters, never to inside a surrogate pair. */
function firstCharacters(text: string, count: number): string {
    if (text.length <= count)
        return text;
    return text.slice(0, isLowSurrogate(text.charCodeAt(count)) ? count - 1 : count);
}

function isLowSurrogate(code: number): boolean {
    return code >= 0xdc00 && code <= 0xdfff;
}

export function hasInfillTokens(model: LlamaModel): boolean {
    const {prefix, suffix, middle} = model.tokens.infill;
    return prefix != null && suffix != null && middle != null;
}

function bos(model: LlamaModel): Token[] {
    return model.tokens.shouldPrependBosToken && model.tokens.bos != null ? [model.tokens.bos] : [];
}
