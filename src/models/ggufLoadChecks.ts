import type {HeaderValue} from "./ggufBounds.js";

/**
 * What llama.cpp asserts (GGML_ASSERT, which aborts the whole process) about a model file's
 * metadata as it loads it, checked here first so that such a file is listed as unloadable with the
 * reason instead of taking the server, every other model and every open stream down. Each check
 * names the assert it mirrors (llama.cpp as node-llama-cpp 3.22.1 bundles it). What llama.cpp
 * refuses with an error of its own (gguf.cpp's tensor shapes, types, offsets and duplicate names;
 * the vocabulary's score and type array lengths; wrong key types) needs nothing here.
 */

/** The metadata keys these checks read (ggufBounds.ts reads their values as it walks the header). */
export function isLoadCheckedKey(key: string): boolean {
    return key === "general.architecture" || key === tokensKey || checkedSuffixes.some((suffix) => key.endsWith(suffix));
}

const tokensKey = "tokenizer.ggml.tokens";
const checkedSuffixes = [
    ".block_count", ".nextn_predict_layers", ".expert_count", ".expert_used_count", ".expert_group_count", ".expert_group_used_count",
    ".attention.head_count", ".attention.head_count_kv", ".feed_forward_length"
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

/** llama-hparams.h. */
const maxLayers = 512;
const maxExperts = 1024;

/** Throws the reason llama.cpp would abort on this header; returns for a header it loads (or refuses cleanly). */
export function refuseWhatLlamaAsserts(values: ReadonlyMap<string, HeaderValue>): void {
    checkVocabulary(values.get(tokensKey));
    const architecture = values.get("general.architecture");
    // load_hparams() stops before its asserts for a projector (clip).
    if (typeof architecture === "string" && architecture !== "clip")
        checkLayersAndExperts((name) => values.get(`${architecture}.${name}`));
    if (typeof architecture === "string" && denseArchitectures.has(architecture))
        for (const name of ["attention.head_count", "attention.head_count_kv", "feed_forward_length"]) {
            const value = values.get(`${architecture}.${name}`);
            if (value === 0 || (Array.isArray(value) && value.includes(0)))
                throw new UnloadableModelError(`its ${name} is 0${Array.isArray(value) ? " for a layer" : ""}, which gives a weight no size and makes llama.cpp abort`);
        }
}

/**
 * llama-vocab.cpp, load(): `GGML_ASSERT(id_to_token.size() == token_to_id.size())`: every token's
 * text must be unique. An empty token is renamed `[EMPTY_<id>]` first, which may meet a real one.
 */
function checkVocabulary(tokens: HeaderValue | undefined): void {
    if (!Array.isArray(tokens))
        return;
    const seen = new Map<string, number>();
    for (let id = 0; id < tokens.length; id++) {
        const token = tokens[id];
        if (typeof token !== "string")
            return; // not a string array: llama.cpp refuses it itself ("invalid gguf type")
        const text = token === "" ? `[EMPTY_${id}]` : token;
        const first = seen.get(text);
        if (first != null)
            throw new UnloadableModelError(`its vocabulary lists the token ${JSON.stringify(readable(text))} twice (ids ${first} and ${id}), which makes llama.cpp abort`);
        seen.set(text, id);
    }
}

/** llama-model.cpp, load_hparams(): the layer count and the mixture-of-experts counts. */
function checkLayersAndExperts(get: (name: string) => HeaderValue | undefined): void {
    const layers = get("block_count");
    if (typeof layers === "number" && !(layers > 0 && layers <= maxLayers))
        throw new UnloadableModelError(`its block_count is ${layers}; llama.cpp aborts outside 1 to ${maxLayers}`);
    const nextn = number(get("nextn_predict_layers"));
    if (typeof layers === "number" && nextn > layers)
        throw new UnloadableModelError(`its nextn_predict_layers (${nextn}) exceeds its block_count (${layers}), which makes llama.cpp abort`);
    const experts = number(get("expert_count"));
    const usedValue = get("expert_used_count");
    // One count, or one per layer: llama.cpp checks the largest.
    const used = Array.isArray(usedValue) ? Math.max(0, ...usedValue.map(number)) : number(usedValue);
    const groups = number(get("expert_group_count"));
    const groupsUsed = number(get("expert_group_used_count"));
    const refuse = (what: string) => {
        throw new UnloadableModelError(`its mixture-of-experts counts are inconsistent (${what}), which makes llama.cpp abort`);
    };
    if (experts > maxExperts)
        refuse(`expert_count ${experts} is over ${maxExperts}`);
    if (used > experts)
        refuse(`expert_used_count ${used} is over expert_count ${experts}`);
    if (experts > 0) {
        if (used === 0)
            refuse(`expert_count is ${experts} but expert_used_count is 0`);
        if (groups >= experts)
            refuse(`expert_group_count ${groups} is not below expert_count ${experts}`);
        if (groups > 1 && (experts % groups !== 0 || groupsUsed === 0 || groupsUsed >= groups))
            refuse(`expert_count ${experts} in ${groups} groups, ${groupsUsed} used`);
    } else if (groups !== 0)
        refuse(`expert_group_count ${groups} without experts`);
}

function number(value: HeaderValue | undefined): number {
    return typeof value === "number" ? value : 0;
}

/** A token's bytes (read as latin1, one character a byte) as the UTF-8 text they hold. */
function readable(latin1: string): string {
    return Buffer.from(latin1, "latin1").toString("utf8");
}

/** A file llama.cpp would abort on: the catalogue lists it as "cannot be loaded", with this reason. */
export class UnloadableModelError extends Error {}
