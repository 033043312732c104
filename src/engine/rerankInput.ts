import type {LlamaModel, Token} from "node-llama-cpp";

/**
 * The tokens a reranker scores for one (query, document) pair, laid out exactly as llama-server's
 * `format_prompt_rerank` lays them out, so the same GGUF gives the same order and the same scores:
 *
 * - a GGUF with a rerank template (`tokenizer.chat_template.rerank`, Qwen3-Reranker's): the query
 *   and the document put in its `{query}` and `{document}`, then the whole text tokenized with its
 *   special tokens read as tokens (llama-server substitutes before tokenizing too, so a BPE word
 *   after the template's space tokenizes as it does there);
 * - otherwise (BERT-style cross-encoders): `[BOS] query [EOS] [SEP] document [EOS]`, each marker
 *   only where the vocabulary asks for it (add_bos, add_eos, add_sep), the texts' own special-token
 *   text read as plain text.
 *
 * node-llama-cpp's LlamaRankingContext lays pairs out by which tokens exist rather than by those
 * flags, and tokenizes a template's parts apart: it is used only to evaluate (llamaReranker.ts).
 */
export function rerankTokens(model: LlamaModel, query: string, document: string): Token[] {
    const template = rerankTemplate(model);
    if (template != null)
        // In llama-server's order: `{query}` first, then `{document}` anywhere in the result.
        return model.tokenize(template.split("{query}").join(query).split("{document}").join(document), true);

    const {bos, eos, sep} = model.tokens;
    const end = eos ?? sep;
    const addEos = model.tokens.shouldAppendEosToken && end != null;
    return [
        ...(model.tokens.shouldPrependBosToken && bos != null ? [bos] : []),
        ...model.tokenize(query, false),
        ...(addEos ? [end] : []),
        ...(addsSeparator(model) && sep != null ? [sep] : []),
        ...model.tokenize(document, false),
        ...(addEos ? [end] : [])
    ];
}

/** The GGUF's rerank template, when it has one llama-server would use. */
export function rerankTemplate(model: LlamaModel): string | null {
    const template = (model.fileInfo.metadata.tokenizer as Record<string, unknown> | undefined)?.["chat_template.rerank"];
    return typeof template === "string" ? template : null;
}

/** BPE pre-tokenizers llama.cpp gives add_sep by default (llama-vocab.cpp): RoBERTa-style rerankers. */
const separatedBpe = new Set(["jina-v1-en", "jina-v2-code", "roberta-bpe"]);

/**
 * llama.cpp's add_sep: the GGUF's `tokenizer.ggml.add_sep_token` where it says, else its default
 * for the vocabulary (WordPiece, and the BPE pre-tokenizers above). node-llama-cpp does not expose it.
 */
function addsSeparator(model: LlamaModel): boolean {
    const ggml = model.fileInfo.metadata.tokenizer?.ggml as Record<string, unknown> | undefined;
    if (typeof ggml?.add_sep_token === "boolean")
        return ggml.add_sep_token;
    if (model.vocabularyType === "wpm")
        return true;
    return model.vocabularyType === "bpe" && separatedBpe.has(String(ggml?.pre ?? ""));
}
