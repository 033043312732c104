import os from "node:os";
import path from "node:path";
import {readGgufFileInfo} from "node-llama-cpp";
// The tests' GGUF writer and llama-family tensors, as bench/shapedModel.ts uses them.
import {encodeGguf, f32, type GgufMetadata, i32Arr, str, strArr, u32, writeFileAtomic} from "../test/fixtures/gguf/ggufWriter.js";
import {llamaTensors} from "../test/fixtures/gguf/tinyTensors.js";

/** Small enough that a step costs little beside the bench model's (~3.5 MB of weights against 145 MB), wide enough for Q8_0 blocks. */
const shape = {nEmbd: 64, nLayer: 2, nHead: 4, nHeadKv: 2, nFf: 128};

/**
 * A draft model for the bench model (SmolLM2-135M's shapes): a tiny random-weight llama with the
 * bench model's own tokenizer (its GGUF's tokenizer keys, copied), so a server pairs the two. No
 * smaller trained model of that tokenizer is at hand offline, and random weights agree with the
 * bench model's almost never: this measures what a draft that is nearly always wrong costs, the
 * bench model as its own draft what one that is always right gains.
 */
export async function writeSmallDraftModel(benchModel: string): Promise<string> {
    const info = await readGgufFileInfo(benchModel, {readTensorInfo: false});
    const tokenizer = info.metadata.tokenizer as unknown as {ggml: {
        model: string, pre: string, tokens: string[], token_type: number[], merges: string[], bos_token_id: number, eos_token_id: number, unknown_token_id: number
    }};
    const {ggml} = tokenizer;
    const metadata: GgufMetadata = {
        "general.architecture": str("llama"),
        "general.name": str("bench-random-small-draft"),
        "general.file_type": u32(7), // mostly Q8_0
        "llama.block_count": u32(shape.nLayer),
        "llama.context_length": u32(8192),
        "llama.embedding_length": u32(shape.nEmbd),
        "llama.feed_forward_length": u32(shape.nFf),
        "llama.attention.head_count": u32(shape.nHead),
        "llama.attention.head_count_kv": u32(shape.nHeadKv),
        "llama.attention.layer_norm_rms_epsilon": f32(1e-6),
        "llama.rope.freq_base": f32(500000),
        "tokenizer.ggml.model": str(ggml.model),
        "tokenizer.ggml.pre": str(ggml.pre),
        "tokenizer.ggml.tokens": strArr(ggml.tokens),
        "tokenizer.ggml.token_type": i32Arr(ggml.token_type),
        "tokenizer.ggml.merges": strArr(ggml.merges),
        "tokenizer.ggml.bos_token_id": u32(ggml.bos_token_id),
        "tokenizer.ggml.eos_token_id": u32(ggml.eos_token_id),
        "tokenizer.ggml.unknown_token_id": u32(ggml.unknown_token_id)
    };
    const tensors = llamaTensors({...shape, nVocab: ggml.tokens.length}, 7, {q8_0: true, tiedOutput: true});
    const file = path.join(os.tmpdir(), "chatserve-bench", "bench-random-small-draft-q8_0.gguf");
    await writeFileAtomic(file, encodeGguf({metadata, tensors}));
    return file;
}
