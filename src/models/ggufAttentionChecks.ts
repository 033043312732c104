import type {HeaderValue} from "./ggufBounds.js";

/**
 * What a model's attention sizes and rotary embedding make llama.cpp abort on: at load
 * (llama-model.cpp's load_hparams), or once the model is loaded, when its first context builds the
 * graph (each architecture's graph in src/models/*.cpp, and ggml's rope and matrix products). Each
 * was tried on a tiny model whose weights fit the sizes, so llama.cpp's own shape checks passed it
 * (llama.cpp as node-llama-cpp 3.22.1 bundles it). Returns the reason, or undefined.
 */

/** An architecture's metadata value by its name without the `<architecture>.` prefix. */
export type ArchitectureValue = (name: string) => HeaderValue | undefined;

/** The keys read here, after the `<architecture>.` prefix. */
export const attentionKeys = [
    "embedding_length", "attention.head_count", "attention.head_count_kv", "attention.key_length", "attention.value_length",
    "rope.dimension_count", "rope.dimension_sections", "rope.scaling.type"
];

export function attentionProblem(architecture: string, get: ArchitectureValue): string | undefined {
    // load_hparams(): `GGML_ASSERT(rope_scaling_type_train != LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED)`,
    // for every architecture (a name not in llama.cpp's list reads as unspecified).
    const scaling = get("rope.scaling.type");
    if (typeof scaling === "string" && !ropeScalingTypes.includes(scaling))
        return `its rope.scaling.type ${JSON.stringify(scaling)} is none of ${ropeScalingTypes.join(", ")}, which makes llama.cpp abort`;

    // ggml_mul_mat(k, q) shares each KV head among a whole number of query heads (ggml_can_mul_mat).
    const heads = numbers(get("attention.head_count")) ?? [];
    const kvHeads = numbers(get("attention.head_count_kv")) ?? heads;
    for (let layer = 0; layer < Math.max(heads.length, kvHeads.length); layer++) {
        const [count, kvCount] = [atLayer(heads, layer), atLayer(kvHeads, layer)];
        if (count > 0 && kvCount > 0 && count % kvCount !== 0)
            return `its ${count} attention heads do not share its ${kvCount} KV heads evenly, which makes llama.cpp abort`;
    }

    // The sizes load_hparams() derives, from the first layer's head count as llama.cpp does.
    const embedding = get("embedding_length");
    const headCount = heads[0] ?? 0;
    if (typeof embedding !== "number" || headCount <= 0)
        return undefined; // no attention (recurrent models), or a header llama.cpp refuses itself
    const keySize = numberOr(get("attention.key_length"), Math.floor(embedding / headCount));
    const valueSize = numberOr(get("attention.value_length"), Math.floor(embedding / headCount));
    const rotary = numberOr(get("rope.dimension_count"), keySize);
    // llama, deci and falcon refuse a rotation other than their key heads' at load, with an error of their own.
    if (rotationCheckedAtLoad.has(architecture) && rotary !== keySize)
        return undefined;
    // The head size the graph asserts on: the value heads', but olmo2's is its width over its head count.
    const [graphHead, graphHeadName] = architecture === "olmo2"
        ? [Math.floor(embedding / headCount), "heads (its width over its head count)"] : [valueSize, "value heads"];
    if (equalHeadSizes.has(architecture) && keySize !== graphHead)
        return `its key heads (${keySize}) and ${graphHeadName} (${graphHead}) differ in size, which llama.cpp's ${architecture} graph aborts on`;
    if (ropeIsHeadSize.has(architecture) && rotary !== graphHead)
        return `its rope.dimension_count (${rotary}) is not its head size (${graphHead}), which llama.cpp's ${architecture} graph aborts on`;
    if (!withoutRope.has(architecture) && (rotary % 2 !== 0 || rotary > keySize))
        return `its rotary dimensions (${rotary}) are ${rotary % 2 !== 0 ? "odd" : `more than its head size (${keySize})`}, which makes llama.cpp's rope abort`;

    // M-RoPE: `GGML_ASSERT(sections[0] > 0 || sections[1] > 0 || sections[2] > 0)` and `sect_dims <= ne0` in ggml's rope.
    const sections = numbers(get("rope.dimension_sections")) ?? [];
    if (usesMrope(architecture, sections)) {
        if (!sections.slice(0, 3).some((section) => section > 0))
            return "its rope.dimension_sections are missing or 0, which makes llama.cpp's rope abort";
        const sum = sections.slice(0, 4).reduce((total, section) => total + section, 0);
        if (sum > keySize)
            return `its rope.dimension_sections add up to ${sum}, more than its head size (${keySize}), which makes llama.cpp's rope abort`;
    }
    return undefined;
}

/** load_hparams() throws "invalid n_rot" for these when the rotation is not the key heads' size. */
const rotationCheckedAtLoad = new Set(["llama", "deci", "falcon", "llama-embed"]);

/** llama-model.cpp, LLAMA_ROPE_SCALING_TYPES. */
const ropeScalingTypes = ["none", "linear", "yarn", "longrope"];

/** llama_model_rope_type(): those that always rotate with M-RoPE, and those that do once two sections are set (glm4 and hunyuan-vl) or any (dflash). */
const alwaysMrope = new Set(["qwen2vl", "paddleocr", "qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe", "qwen4exp", "qwen3tts"]);
function usesMrope(architecture: string, sections: readonly number[]): boolean {
    if (alwaysMrope.has(architecture))
        return true;
    if (architecture === "glm4" || architecture === "glm4moe" || architecture === "hunyuan_vl")
        return (sections[0] ?? 0) > 0 && (sections[1] ?? 0) > 0;
    return architecture === "dflash" && sections.some((section) => section !== 0);
}

/**
 * llama_model_rope_type()'s architectures without RoPE, and bert, whose graph rotates only for its
 * nomic and jina-v3 variants: their head sizes need not suit a rotation.
 */
const withoutRope = new Set([
    "clip", "gpt2", "gptj", "mpt", "refact", "bloom", "mamba", "mamba2", "jamba", "jina-bert-v2", "t5", "t5encoder", "jais", "rwkv6",
    "rwkv6qwen2", "rwkv7", "arwkv7", "wavtokenizer-dec", "nemotron_h", "nemotron_h_moe", "kimi-linear", "kimi-k3", "bert"
]);

/**
 * The architectures whose graph asserts that its heads are as wide as its key heads
 * (`n_embd_head == hparams.n_embd_head_k()`, or exaone4's, exaone-moe's and talkie's `== n_embd_head_v()`).
 */
const equalHeadSizes = new Set([
    "afmoe", "apertus", "arcee", "arctic", "baichuan", "bailingmoe2", "bert", "bitnet", "bloom", "chameleon", "chatglm", "codeshell",
    "cogvlm", "cohere2", "cohere2moe", "command-r", "dbrx", "deci", "deepseek", "deepseek4", "dflash", "dots1", "dream", "eagle3",
    "ernie4_5", "ernie4_5-moe", "eurobert", "exaone", "exaone-moe", "exaone4", "falcon", "glm4", "glm4moe", "gpt2", "gptneox", "granite", "granite_swa",
    "granitehybrid", "graniteswitch", "grok", "grovemoe", "hunyuan-moe", "hunyuan_vl", "hy_v3", "internlm2", "jais", "jais2", "laguna",
    "llada", "llada-moe", "llama", "llama4", "maincoder", "mellum", "minimax-01", "minimax-m2", "minimax-m3", "mistral3", "modern-bert",
    "mpt", "muse-glimmer", "nanbeige", "nemotron", "nemotron_h", "nemotron_h_moe", "neo-bert", "olmo", "olmo2", "olmoe", "openelm",
    "orion", "paddleocr", "pangu-embedded", "phi2", "phi3", "plamo", "pockettts", "qwen", "qwen2", "qwen2moe", "qwen2vl", "qwen3",
    "qwen35", "qwen35moe", "qwen3moe", "qwen3next", "qwen3vl", "qwen3vlmoe", "qwen4exp", "refact", "rnd1", "seed_oss", "smallthinker",
    "smollm3", "spark2_5", "stablelm", "starcoder", "starcoder2", "t5", "talkie", "xverse"
]);

/** The architectures whose graph also asserts `n_embd_head == n_rot` (every head dimension rotates). */
const ropeIsHeadSize = new Set([
    "apertus", "arcee", "arctic", "baichuan", "chameleon", "codeshell", "cogvlm", "cohere2moe", "dbrx", "deci", "deepseek", "dots1",
    "dream", "ernie4_5", "ernie4_5-moe", "exaone", "exaone-moe", "exaone4", "falcon", "granite", "granite_swa", "graniteswitch", "grok",
    "grovemoe", "hunyuan-moe", "hunyuan_vl", "hy_v3", "internlm2", "jais2", "llada", "llada-moe", "llama", "llama4", "maincoder", "mellum",
    "minimax-01", "minimax-m2", "mistral3", "nemotron", "olmo", "olmo2", "olmoe", "orion", "paddleocr", "pangu-embedded", "plamo",
    "pockettts", "qwen2", "qwen2moe", "qwen2vl", "qwen3", "qwen3moe", "qwen3vl", "qwen3vlmoe", "rnd1", "seed_oss", "smallthinker",
    "smollm3", "starcoder2", "talkie", "xverse"
]);

/** A number, or an array of numbers (a count given once for every layer, or per layer; M-RoPE sections). */
function numbers(value: HeaderValue | undefined): number[] | undefined {
    if (typeof value === "number")
        return [value];
    return Array.isArray(value) && value.every((item) => typeof item === "number") ? value as number[] : undefined;
}

/** A value given once stands for every layer. */
function atLayer(counts: readonly number[], layer: number): number {
    return (counts.length === 1 ? counts[0] : counts[layer]) ?? 0;
}

function numberOr(value: HeaderValue | undefined, fallback: number): number {
    return typeof value === "number" ? value : fallback;
}
