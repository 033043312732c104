import type {LlamaModel} from "node-llama-cpp";

/** What of a model's tokenizer decides whether another model's drafts can be verified by it. */
export type VocabularyFacts = {
    /** The tokenizer's kind, as the GGUF names it (tokenizer.ggml.model: "llama", "gpt2"…). */
    type: string,
    bos: number | null,
    eos: number | null,
    addBos: boolean,
    addEos: boolean,
    /** Each token's text, by id (tokenizer.ggml.tokens). */
    tokens: readonly string[]
};

/** llama.cpp's SPEC_VOCAB_MAX_SIZE_DIFFERENCE: vocabularies this close in size can share drafts (padding, a few added tokens). */
const largestSizeDifference = 128;
/** llama.cpp's SPEC_VOCAB_CHECK_START_TOKEN_ID: the first few ids (special tokens) may differ in text. */
const firstComparedToken = 5;

/**
 * Why a draft model's tokens cannot be read as its target's, or null when they can: llama.cpp's
 * rule (common/speculative.cpp, common_speculative_are_compatible), so that a pairing llama-server
 * refuses is refused here too. A draft token is fed to the target by its id, so both models must
 * spell every id alike: the same kind of tokenizer, the same BOS and EOS where they are added,
 * vocabularies within 128 tokens of each other in size, and the same text for every id both have
 * from id 5 on.
 */
export function draftVocabularyRefusal(target: VocabularyFacts, draft: VocabularyFacts): string | null {
    if (target.type !== draft.type)
        return `its tokenizer is '${draft.type}', the model's is '${target.type}'`;
    if (target.addBos !== draft.addBos || (target.addBos && target.bos !== draft.bos))
        return `its BOS token differs from the model's (added: ${draft.addBos} against ${target.addBos}; id ${draft.bos} against ${target.bos})`;
    if (target.addEos !== draft.addEos || (target.addEos && target.eos !== draft.eos))
        return `its EOS token differs from the model's (added: ${draft.addEos} against ${target.addEos}; id ${draft.eos} against ${target.eos})`;
    const difference = Math.abs(target.tokens.length - draft.tokens.length);
    if (difference > largestSizeDifference)
        return `its vocabulary has ${draft.tokens.length} tokens, the model's ${target.tokens.length} (at most ${largestSizeDifference} apart)`;
    const shared = Math.min(target.tokens.length, draft.tokens.length);
    for (let id = firstComparedToken; id < shared; id++)
        if (target.tokens[id] !== draft.tokens[id])
            return `its token ${id} is ${JSON.stringify(draft.tokens[id])}, the model's ${JSON.stringify(target.tokens[id])}`;
    return null;
}

/** A loaded model's tokenizer facts, as llama.cpp reads them from its GGUF. */
export function vocabularyFacts(model: LlamaModel): VocabularyFacts {
    const {tokenizer} = model.fileInfo.metadata;
    return {
        type: String(tokenizer.ggml.model),
        bos: model.tokens.bos,
        eos: model.tokens.eos,
        addBos: model.tokens.shouldPrependBosToken,
        addEos: model.tokens.shouldAppendEosToken,
        tokens: tokenizer.ggml.tokens
    };
}
