import {attentionKeys, attentionProblem} from "./ggufAttentionChecks.js";
import type {HeaderValue} from "./ggufBounds.js";
import {duplicateTokenProblem, missingByteTokenProblem, tokenTexts, wordPieceByteTokenProblem} from "./ggufVocabularyChecks.js";

/**
 * What llama.cpp asserts (GGML_ASSERT, which aborts the whole process) about a model file's
 * metadata as it loads it and first uses it, checked here first so that such a file is listed as
 * unloadable with the reason instead of taking the server, every other model and every open stream
 * down. Each check names the assert it mirrors (llama.cpp as node-llama-cpp 3.22.1 bundles it); the
 * vocabulary's are in ggufVocabularyChecks.ts, the attention sizes' and rotary embedding's in
 * ggufAttentionChecks.ts. What llama.cpp refuses with an error of its own (gguf.cpp's tensor shapes,
 * types, offsets and duplicate names; weights whose shapes do not fit the hyperparameters; per-layer
 * arrays not one value per layer; the vocabulary's score and type array lengths; wrong key types)
 * needs nothing here.
 */

/** The metadata keys these checks read (ggufBounds.ts reads their values as it walks the header). */
export function isLoadCheckedKey(key: string): boolean {
    return key === "general.architecture" || key === tokensKey || key === tokenTypesKey || key === tokenizerKey
        || checkedSuffixes.some((suffix) => key.endsWith(suffix));
}

const tokensKey = "tokenizer.ggml.tokens";
const tokenTypesKey = "tokenizer.ggml.token_type";
const tokenizerKey = "tokenizer.ggml.model";
const checkedSuffixes = [
    ".block_count", ".nextn_predict_layers", ".expert_count", ".expert_used_count", ".expert_group_count", ".expert_group_used_count",
    ".feed_forward_length", ".posnet.block_count", ".convnext.block_count", ".pooling_type", ...attentionKeys.map((name) => `.${name}`)
];

/**
 * Transformers whose every layer has attention and a feed-forward block. A head count, KV head count
 * or feed-forward length of 0 makes a weight's shape 0, which llama-model-loader.cpp's
 * `GGML_ASSERT(t_meta.ne[dim] >= 1)` aborts on (tried: llama). Recurrent and hybrid models (Mamba,
 * RWKV, Jamba's or Granite's hybrids) have 0 there by design, so only these are checked.
 */
const denseArchitectures = new Set([
    "llama", "llama4", "mistral3", "qwen2", "qwen2vl", "qwen25vl", "qwen3", "qwen3vl", "qwen2moe", "qwen3moe", "gemma", "gemma2", "gemma3",
    "phi2", "phi3", "starcoder2", "gpt2", "falcon", "stablelm", "olmo", "olmo2", "deepseek", "deepseek2", "command-r", "cohere2",
    "granite", "internlm2", "smollm3", "exaone", "glm4", "gptneox", "bert", "nomic-bert"
]);

/** llama-hparams.h; llama.h's last pooling type (LLAMA_POOLING_TYPE_RANK). */
const maxLayers = 512;
const maxExperts = 1024;
const maxPoolingType = 4;

/** Throws the reason llama.cpp would abort on this header; returns for a header it loads (or refuses cleanly). */
export function refuseWhatLlamaAsserts(values: ReadonlyMap<string, HeaderValue>): void {
    const tokens = tokenTexts(values.get(tokensKey));
    const architecture = values.get("general.architecture");
    const problem = (tokens == null ? undefined : duplicateTokenProblem(tokens))
        // load_hparams() stops before its asserts for a projector (clip).
        ?? (typeof architecture === "string" && architecture !== "clip"
            ? hyperparameterProblem(architecture, (name) => values.get(`${architecture}.${name}`))
            : undefined)
        ?? tokenizerProblem(values.get(tokenizerKey))
        ?? (tokens != null && values.get(tokenizerKey) === "llama" ? missingByteTokenProblem(tokens) : undefined)
        ?? (values.get(tokenizerKey) === "bert" ? wordPieceByteTokenProblem(values.get(tokenTypesKey)) : undefined);
    if (problem != null)
        throw new UnloadableModelError(problem);
}

/**
 * A model without a tokenizer (WavTokenizer's decoder has none) gets no vocabulary: its token
 * embedding has no rows, which the loader's `GGML_ASSERT(t_meta.ne[dim] >= 1)` aborts on, and given
 * a `vocab_size`, the first text to tokenize fails `GGML_ASSERT(tokenizer && ...)` instead.
 */
function tokenizerProblem(tokenizer: HeaderValue | undefined): string | undefined {
    return tokenizer === "none" || tokenizer === "no_vocab"
        ? `it has no tokenizer (tokenizer.ggml.model is "${tokenizer}"), which makes llama.cpp abort as it loads it or tokenizes a text`
        : undefined;
}

function hyperparameterProblem(architecture: string, get: (name: string) => HeaderValue | undefined): string | undefined {
    const counts = layerAndExpertProblem(get);
    if (counts != null)
        return counts;
    if (denseArchitectures.has(architecture))
        for (const name of ["attention.head_count", "attention.head_count_kv", "feed_forward_length"]) {
            const value = get(name);
            if (value === 0 || (Array.isArray(value) && value.includes(0)))
                return `its ${name} is 0${Array.isArray(value) ? " for a layer" : ""}, which gives a weight no size and makes llama.cpp abort`;
        }
    // llama-graph.cpp's build_pooling(): `GGML_ABORT("unknown pooling type")`, as an embedding context is made
    // (0 none, 1 mean, 2 CLS, 3 last, 4 rank; 0xFFFFFFFF reads as unspecified).
    const pooling = get("pooling_type");
    if (typeof pooling === "number" && pooling > maxPoolingType && pooling !== 0xFFFFFFFF)
        return `its pooling_type ${pooling} is none llama.cpp knows (0 to ${maxPoolingType}), which makes llama.cpp abort as it embeds`;
    // load_hparams(): `GGML_ASSERT(hparams.posnet.n_layer <= hparams.n_layer_all)`, and the same of convnext (WavTokenizer's decoder).
    const layers = get("block_count");
    if (architecture === "wavtokenizer-dec" && typeof layers === "number")
        for (const part of ["posnet", "convnext"]) {
            const count = get(`${part}.block_count`);
            if (typeof count === "number" && count > layers)
                return `its ${part}.block_count (${count}) exceeds its block_count (${layers}), which makes llama.cpp abort`;
        }
    return attentionProblem(architecture, get);
}

/** llama-model.cpp, load_hparams(): the layer count and the mixture-of-experts counts. */
function layerAndExpertProblem(get: (name: string) => HeaderValue | undefined): string | undefined {
    const layers = get("block_count");
    if (typeof layers === "number" && !(layers > 0 && layers <= maxLayers))
        return `its block_count is ${layers}; llama.cpp aborts outside 1 to ${maxLayers}`;
    const nextn = number(get("nextn_predict_layers"));
    if (typeof layers === "number" && nextn > layers)
        return `its nextn_predict_layers (${nextn}) exceeds its block_count (${layers}), which makes llama.cpp abort`;
    const experts = number(get("expert_count"));
    const usedValue = get("expert_used_count");
    // One count, or one per layer: llama.cpp checks the largest.
    const used = Array.isArray(usedValue) ? Math.max(0, ...usedValue.map(number)) : number(usedValue);
    const groups = number(get("expert_group_count"));
    const groupsUsed = number(get("expert_group_used_count"));
    const inconsistent = (what: string) => `its mixture-of-experts counts are inconsistent (${what}), which makes llama.cpp abort`;
    if (experts > maxExperts)
        return inconsistent(`expert_count ${experts} is over ${maxExperts}`);
    if (used > experts)
        return inconsistent(`expert_used_count ${used} is over expert_count ${experts}`);
    if (experts > 0) {
        if (used === 0)
            return inconsistent(`expert_count is ${experts} but expert_used_count is 0`);
        if (groups >= experts)
            return inconsistent(`expert_group_count ${groups} is not below expert_count ${experts}`);
        if (groups > 1 && (experts % groups !== 0 || groupsUsed === 0 || groupsUsed >= groups))
            return inconsistent(`expert_count ${experts} in ${groups} groups, ${groupsUsed} used`);
    } else if (groups !== 0)
        return inconsistent(`expert_group_count ${groups} without experts`);
    return undefined;
}

function number(value: HeaderValue | undefined): number {
    return typeof value === "number" ? value : 0;
}

/** A file llama.cpp would abort on: the catalogue lists it as "cannot be loaded", with this reason. */
export class UnloadableModelError extends Error {}
