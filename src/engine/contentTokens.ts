import type {LlamaModel, Token} from "node-llama-cpp";
import {refuseTokensOutsideVocabulary} from "./textPrompt.js";

export type TokenizeOptions = {
    /** The tokens the vocabulary adds around a text (BOS, EOS; [CLS] … [SEP] for WordPiece). */
    addSpecial: boolean,
    /** Special-token text (`<|im_start|>`) read as its token rather than as plain text. */
    parseSpecial: boolean,
    /** The request's field, as errors name it. */
    param: string
};

/**
 * llama-server's `tokenize_mixed`: text and token ids in one list, each text tokenized alone and
 * each id kept as it is; the special tokens are added only around a text that comes first, as
 * llama-server adds them. Ids are checked against the vocabulary (llama-server does not: it would
 * hand them back, or crash on them at /detokenize).
 */
export function tokenizeContent(model: LlamaModel, content: ReadonlyArray<string | number>, {addSpecial, parseSpecial, param}: TokenizeOptions): Token[] {
    const tokens: Token[] = [];
    for (const [index, part] of content.entries()) {
        if (typeof part === "number") {
            refuseTokensOutsideVocabulary(model, [part], `${param}[${index}]`);
            tokens.push(part as Token);
        } else
            tokens.push(...withSpecialTokens(model, model.tokenize(part, parseSpecial), addSpecial && index === 0));
    }
    return tokens;
}

/**
 * The tokens `llama_tokenize` adds with add_special: WordPiece always frames a text in [CLS] … [SEP];
 * the other vocabularies add BOS and EOS where the GGUF asks for them (add_bos_token, add_eos_token).
 * node-llama-cpp's tokenize never adds them.
 */
function withSpecialTokens(model: LlamaModel, tokens: Token[], add: boolean): Token[] {
    if (!add)
        return tokens;
    const {bos, eos, sep} = model.tokens;
    if (model.vocabularyType === "wpm")
        return [...(bos == null ? [] : [bos]), ...tokens, ...(sep == null ? [] : [sep])];
    return [
        ...(model.tokens.shouldPrependBosToken && bos != null ? [bos] : []),
        ...tokens,
        ...(model.tokens.shouldAppendEosToken && eos != null ? [eos] : [])
    ];
}
