import {randomFillSync} from "node:crypto";
import {existsSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {readGgufFileInfo} from "node-llama-cpp";
// The tests' GGUF writer: it writes Q8_0 blocks too, which is all a benchmark model needs.
import {
    encodeGguf, f32, type GgufMetadata, type GgufTensor, i32Arr, Q8_0_BLOCK_BYTES, Q8_0_BLOCK_VALUES, str, strArr, u32, writeFileAtomic
} from "../test/fixtures/gguf/ggufWriter.js";
import {projectRoot} from "./args.js";

/**
 * Writes a random-weight Q8_0 GGUF with the tensor shapes of Qwen2.5-0.5B, the model the speed
 * issue was first measured on, with the real Qwen2 tokenizer and chat template of the shared tiny
 * Qwen model. Speed depends on shapes and types, not on weight values, so figures measured on it
 * stand for the real model's (its replies are gibberish). Every weight matrix is Q8_0 and the
 * norms and biases F32, as llama.cpp's `llama-quantize ... Q8_0` leaves them.
 *
 *   npm run bench:model [-- --out FILE]
 *   npm run bench -- FILE            (and bench:llama-server, bench:settings)
 */
const shape = {embedding: 896, layers: 24, heads: 14, kvHeads: 2, feedForward: 4864, context: 32768};
const tokenizerSource = path.join(projectRoot, "../shared/models/tiny-random-qwen2.5-chatml-tools.gguf");

const {values} = parseArgs({options: {out: {type: "string"}}});
const outFile = path.resolve(values.out ?? path.join(os.tmpdir(), "chatserve-bench", "random-qwen2.5-0.5b-shape-q8_0.gguf"));

/** Uniform random int8 values under one small f16 scale, 1.25 × 2^-12: values within ±0.039, standard deviation ~0.02. */
function randomQ8(name: string, shapeInGgufOrder: readonly number[]): GgufTensor {
    const elements = shapeInGgufOrder.reduce((a, b) => a * b, 1);
    const data = randomFillSync(new Uint8Array(elements / Q8_0_BLOCK_VALUES * Q8_0_BLOCK_BYTES));
    const scale = 0x0d00; // f16 bits: exponent 3 (2^(3-15)), mantissa 256/1024
    for (let block = 0; block < data.length; block += Q8_0_BLOCK_BYTES) {
        data[block] = scale & 0xff;
        data[block + 1] = scale >> 8;
    }
    return {name, shape: shapeInGgufOrder, type: "q8_0", data};
}

const vector = (name: string, length: number, value: () => number): GgufTensor =>
    ({name, shape: [length], data: Float32Array.from({length}, value)});

if (!existsSync(tokenizerSource))
    throw new Error(`bench:model takes the Qwen2 tokenizer and template from ${tokenizerSource}, which is missing`);
const info = await readGgufFileInfo(tokenizerSource, {readTensorInfo: false});
const tokenizer = info.metadata.tokenizer as unknown as {
    ggml: {tokens: string[], token_type: number[], merges: string[], padding_token_id: number, bos_token_id: number, eos_token_id: number},
    chat_template: string
};

const {embedding, layers, heads, kvHeads, feedForward} = shape;
const kvWidth = embedding / heads * kvHeads;
const metadata: GgufMetadata = {
    "general.architecture": str("qwen2"),
    "general.name": str("random-qwen2.5-0.5b-shape"),
    "general.file_type": u32(7), // mostly Q8_0
    "general.quantization_version": u32(2),
    "qwen2.context_length": u32(shape.context),
    "qwen2.embedding_length": u32(embedding),
    "qwen2.block_count": u32(layers),
    "qwen2.feed_forward_length": u32(feedForward),
    "qwen2.attention.head_count": u32(heads),
    "qwen2.attention.head_count_kv": u32(kvHeads),
    "qwen2.rope.freq_base": f32(1e6),
    "qwen2.attention.layer_norm_rms_epsilon": f32(1e-6),
    "tokenizer.ggml.model": str("gpt2"),
    "tokenizer.ggml.pre": str("qwen2"),
    "tokenizer.ggml.tokens": strArr(tokenizer.ggml.tokens),
    "tokenizer.ggml.token_type": i32Arr(tokenizer.ggml.token_type),
    "tokenizer.ggml.merges": strArr(tokenizer.ggml.merges),
    "tokenizer.ggml.padding_token_id": u32(tokenizer.ggml.padding_token_id),
    "tokenizer.ggml.bos_token_id": u32(tokenizer.ggml.bos_token_id),
    "tokenizer.ggml.eos_token_id": u32(tokenizer.ggml.eos_token_id),
    "tokenizer.chat_template": str(tokenizer.chat_template)
};

const bias = () => (Math.random() - 0.5) * 0.04;
// Qwen2.5-0.5B ties its output projection to the token embeddings: no output.weight.
const tensors: GgufTensor[] = [
    randomQ8("token_embd.weight", [embedding, tokenizer.ggml.tokens.length]),
    vector("output_norm.weight", embedding, () => 1)
];
for (let layer = 0; layer < layers; layer++) {
    const name = (tensor: string) => `blk.${layer}.${tensor}`;
    tensors.push(
        vector(name("attn_norm.weight"), embedding, () => 1),
        randomQ8(name("attn_q.weight"), [embedding, embedding]),
        vector(name("attn_q.bias"), embedding, bias),
        randomQ8(name("attn_k.weight"), [embedding, kvWidth]),
        vector(name("attn_k.bias"), kvWidth, bias),
        randomQ8(name("attn_v.weight"), [embedding, kvWidth]),
        vector(name("attn_v.bias"), kvWidth, bias),
        randomQ8(name("attn_output.weight"), [embedding, embedding]),
        vector(name("ffn_norm.weight"), embedding, () => 1),
        randomQ8(name("ffn_gate.weight"), [embedding, feedForward]),
        randomQ8(name("ffn_up.weight"), [embedding, feedForward]),
        randomQ8(name("ffn_down.weight"), [feedForward, embedding])
    );
}

await writeFileAtomic(outFile, encodeGguf({metadata, tensors}));
console.log(outFile);
