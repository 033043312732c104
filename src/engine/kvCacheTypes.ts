/**
 * The KV cache's element types, under llama-server's names (`--cache-type-k` / `-ctk`,
 * `--cache-type-v` / `-ctv`): what a cached token's keys and values are stored as. f16 is
 * llama.cpp's default; q8_0 halves the cache at a small cost in accuracy (q4_0 quarters it, at a
 * larger one), so a long agent conversation fits in half the memory. Why and what it measured:
 * docs/context.md ("KV-cache types").
 */
export const kvCacheTypeNames = ["f16", "f32", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"] as const;

export type KvCacheType = typeof kvCacheTypeNames[number];

/** The key and the value type of one model's cache. */
export type KvCacheTypes = {k: KvCacheType, v: KvCacheType};

export const defaultKvCacheTypes: KvCacheTypes = {k: "f16", v: "f16"};

/**
 * Bytes per element: a block type stores `elements` values in `bytes` (ggml's type traits, e.g.
 * q8_0: 32 one-byte values and an f16 scale, 34 bytes). node-llama-cpp's estimator multiplies
 * elements by the block's bytes, which counts a q8_0 cache 17 times too large: kvCacheEstimate.ts
 * asks it for f16 and f32 only, whose blocks are one element, and scales by these.
 */
const blocks: Record<KvCacheType, {bytes: number, elements: number}> = {
    f32: {bytes: 4, elements: 1},
    f16: {bytes: 2, elements: 1},
    bf16: {bytes: 2, elements: 1},
    q8_0: {bytes: 34, elements: 32},
    q5_1: {bytes: 24, elements: 32},
    q5_0: {bytes: 22, elements: 32},
    q4_1: {bytes: 20, elements: 32},
    q4_0: {bytes: 18, elements: 32},
    iq4_nl: {bytes: 18, elements: 32}
};

export function bytesPerElement(type: KvCacheType): number {
    return blocks[type].bytes / blocks[type].elements;
}

/** Elements a block holds: a quantized cache needs each attention head's width to be a multiple of it. */
export function blockElements(type: KvCacheType): number {
    return blocks[type].elements;
}

/** A quantized type (not f32, f16, bf16): llama.cpp reads a quantized V cache only with flash attention. */
export function isQuantized(type: KvCacheType): boolean {
    return blocks[type].elements > 1;
}

/** node-llama-cpp's name for the type (its GgmlType key): "Q8_0", "IQ4_NL". */
export function ggmlTypeName(type: KvCacheType): "F16" | "F32" | "BF16" | "Q8_0" | "Q4_0" | "Q4_1" | "IQ4_NL" | "Q5_0" | "Q5_1" {
    return type.toUpperCase() as ReturnType<typeof ggmlTypeName>;
}

export function isDefaultKvCache(types: KvCacheTypes): boolean {
    return types.k === "f16" && types.v === "f16";
}

/** "q8_0" when both are the same type, else "K q8_0, V f16". */
export function describeKvCacheTypes(types: KvCacheTypes): string {
    return types.k === types.v ? types.k : `K ${types.k}, V ${types.v}`;
}

/**
 * Why a model cannot load with these types, before llama.cpp is asked (it would refuse the context):
 * a quantized V cache with flash attention off, or a head width that is not a whole number of blocks.
 * Null when it can.
 */
export function kvCacheTypeRefusal(types: KvCacheTypes, {flashAttention, headWidths}: {flashAttention: "auto" | "on" | "off", headWidths?: {k: number, v: number}}): string | null {
    if (isQuantized(types.v) && flashAttention === "off")
        return `its quantized V cache (${types.v}) is read only by flash attention, which --flash-attention off turns off; use --flash-attention auto or on, or an f16 V cache`;
    for (const part of ["k", "v"] as const) {
        const width = headWidths?.[part];
        if (width != null && width > 0 && width % blockElements(types[part]) !== 0)
            return `its attention heads are ${width} wide, not a multiple of ${types[part]}'s block of ${blockElements(types[part])} values; ` +
                `use another --cache-type-${part} (or cache_type_${part} in chatserve.json) for it, such as f16`;
    }
    return null;
}
