import {existsSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {readGgufFileInfo} from "node-llama-cpp";
// The tests' GGUF writer and llama-family tensors: they write Q8_0 too, which is all a benchmark model needs.
import {encodeGguf, f32, type GgufMetadata, i32Arr, str, strArr, u32, writeFileAtomic} from "../test/fixtures/gguf/ggufWriter.js";
import {llamaTensors} from "../test/fixtures/gguf/tinyTensors.js";
import {projectRoot} from "./args.js";

/**
 * Writes a random-weight Q8_0 GGUF with the tensor shapes of Qwen2.5-0.5B, the model the speed
 * issue was first measured on, with the real Qwen2 tokenizer and chat template of the shared tiny
 * Qwen model. Speed depends on shapes and types, not on weight values, so figures measured on it
 * stand for the real model's (its replies are gibberish).
 *
 *   npm run bench:model [-- --out FILE]
 *   npm run bench -- FILE            (and bench:llama-server, bench:settings)
 */
const shape = {nEmbd: 896, nLayer: 24, nHead: 14, nHeadKv: 2, nFf: 4864};
const trainedContext = 32768;
const tokenizerSource = path.join(projectRoot, "../shared/models/tiny-random-qwen2.5-chatml-tools.gguf");

const {values} = parseArgs({options: {out: {type: "string"}}});
const outFile = path.resolve(values.out ?? path.join(os.tmpdir(), "chatserve-bench", "random-qwen2.5-0.5b-shape-q8_0.gguf"));

if (!existsSync(tokenizerSource))
    throw new Error(`bench:model takes the Qwen2 tokenizer and template from ${tokenizerSource}, which is missing`);
const info = await readGgufFileInfo(tokenizerSource, {readTensorInfo: false});
const tokenizer = info.metadata.tokenizer as unknown as {
    ggml: {tokens: string[], token_type: number[], merges: string[], padding_token_id: number, bos_token_id: number, eos_token_id: number},
    chat_template: string
};

const metadata: GgufMetadata = {
    "general.architecture": str("qwen2"),
    "general.name": str("random-qwen2.5-0.5b-shape"),
    "general.file_type": u32(7), // mostly Q8_0
    "general.quantization_version": u32(2),
    "qwen2.context_length": u32(trainedContext),
    "qwen2.embedding_length": u32(shape.nEmbd),
    "qwen2.block_count": u32(shape.nLayer),
    "qwen2.feed_forward_length": u32(shape.nFf),
    "qwen2.attention.head_count": u32(shape.nHead),
    "qwen2.attention.head_count_kv": u32(shape.nHeadKv),
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

// Qwen2 is llama's layout with Q, K and V biases; 0.5B ties its output projection to the embeddings.
const tensors = llamaTensors(
    {...shape, nVocab: tokenizer.ggml.tokens.length}, 1, {q8_0: true, qkvBias: true, tiedOutput: true}
);

await writeFileAtomic(outFile, encodeGguf({metadata, tensors}));
console.log(outFile);
