import type {LlamaModel, Token} from "node-llama-cpp";
import {BadRequestError, ContextLengthExceededError} from "../errors.js";
import type {PreparedPrompt} from "./types.js";

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
 */
export function prepareInfillPrompt(model: LlamaModel, prefix: string, suffix: string): PreparedPrompt | null {
    const {prefix: pre, suffix: suf, middle: mid} = model.tokens.infill;
    if (pre == null || suf == null || mid == null)
        return null;

    const tokens = [...bos(model), pre, ...model.tokenize(prefix, false), suf, ...model.tokenize(suffix, false), mid];
    return {tokens, stopTokens: [], stopStrings: []};
}

export function hasInfillTokens(model: LlamaModel): boolean {
    const {prefix, suffix, middle} = model.tokens.infill;
    return prefix != null && suffix != null && middle != null;
}

function bos(model: LlamaModel): Token[] {
    return model.tokens.shouldPrependBosToken && model.tokens.bos != null ? [model.tokens.bos] : [];
}
