// The model buildCpuBackend.mjs runs after compiling llama.cpp: a build that loads can still crash
// on its first matrix product (an AMX kernel compiled wrong killed every Q8_0 generation with
// SIGILL), so the check evaluates a real one before the build is kept.
//
// Written here, in plain JavaScript, because postinstall runs before TypeScript is built (the
// test fixtures in test/fixtures/gguf/ write richer models the same way). One llama layer, every
// matrix Q8_0 as `llama-quantize` leaves a model, shapes multiples of 32 so that llama.cpp's
// repacked and AMX kernels take them; random weights, as only running matters.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const nEmbd = 64, nHead = 2, nHeadKv = 1, nFf = 128;
// <unk>, <s>, </s>, the 256 byte tokens (llama.cpp's SPM vocab needs <0x0A>), 29 pieces: 288 = 9 × 32.
const tokens = ["<unk>", "<s>", "</s>",
    ...Array.from({length: 256}, (_, byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`),
    ..."abcdefghijklmnopqrstuvwxyz.,!".split("").map((piece) => `\u2581${piece}`)];
const tokenTypes = tokens.map((_, id) => (id === 0 ? 2 : id < 3 ? 3 : id < 259 ? 6 : 1)); // unknown, control, byte, normal

/** A GGUF v3 file (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md) as one buffer. */
function checkModelBytes() {
    const parts = [];
    const put = (size, write) => {
        const b = Buffer.alloc(size);
        write(b);
        parts.push(b);
    };
    const u32 = (v) => put(4, (b) => b.writeUInt32LE(v));
    const u64 = (v) => put(8, (b) => b.writeBigUInt64LE(BigInt(v)));
    const string = (s) => {
        u64(Buffer.byteLength(s));
        parts.push(Buffer.from(s));
    };
    // Values with their GGUF type ids: 4 uint32, 5 int32, 6 float32, 8 string, 9 array.
    const metadata = {
        "general.architecture": [8, "llama"], "general.alignment": [4, 32], "general.file_type": [4, 7], // mostly Q8_0
        "llama.context_length": [4, 256], "llama.embedding_length": [4, nEmbd], "llama.block_count": [4, 1],
        "llama.feed_forward_length": [4, nFf], "llama.attention.head_count": [4, nHead],
        "llama.attention.head_count_kv": [4, nHeadKv], "llama.attention.layer_norm_rms_epsilon": [6, 1e-5],
        "llama.rope.dimension_count": [4, nEmbd / nHead], "tokenizer.ggml.model": [8, "llama"],
        "tokenizer.ggml.tokens": [9, 8, tokens], "tokenizer.ggml.scores": [9, 6, tokens.map(() => 0)],
        "tokenizer.ggml.token_type": [9, 5, tokenTypes], "tokenizer.ggml.unknown_token_id": [4, 0],
        "tokenizer.ggml.bos_token_id": [4, 1], "tokenizer.ggml.eos_token_id": [4, 2]
    };
    const value = (type, v) => (type === 8 ? string(v) : put(4, (b) => (type === 4 ? b.writeUInt32LE(v) : type === 5 ? b.writeInt32LE(v) : b.writeFloatLE(v))));
    const matrix = (ne0, ne1) => ({shape: [ne0, ne1], type: 8, data: q8Blocks(ne0 * ne1)}); // GGML_TYPE_Q8_0
    const norm = (length) => ({shape: [length], type: 0, data: Buffer.from(new Float32Array(length).fill(1).buffer)}); // F32
    const tensors = {
        "token_embd.weight": matrix(nEmbd, tokens.length), "output_norm.weight": norm(nEmbd), "output.weight": matrix(nEmbd, tokens.length),
        "blk.0.attn_norm.weight": norm(nEmbd), "blk.0.attn_q.weight": matrix(nEmbd, nEmbd),
        "blk.0.attn_k.weight": matrix(nEmbd, nEmbd / nHead * nHeadKv), "blk.0.attn_v.weight": matrix(nEmbd, nEmbd / nHead * nHeadKv),
        "blk.0.attn_output.weight": matrix(nEmbd, nEmbd), "blk.0.ffn_norm.weight": norm(nEmbd),
        "blk.0.ffn_gate.weight": matrix(nEmbd, nFf), "blk.0.ffn_up.weight": matrix(nEmbd, nFf), "blk.0.ffn_down.weight": matrix(nFf, nEmbd)
    };

    parts.push(Buffer.from("GGUF"));
    u32(3);
    u64(Object.keys(tensors).length);
    u64(Object.keys(metadata).length);
    for (const [key, [type, ...rest]] of Object.entries(metadata)) {
        string(key);
        u32(type);
        if (type !== 9)
            value(type, rest[0]);
        else {
            u32(rest[0]);
            u64(rest[1].length);
            rest[1].forEach((item) => value(rest[0], item));
        }
    }
    let offset = 0; // every tensor's data is 32-byte aligned (each size here is a multiple of 32)
    for (const [name, tensor] of Object.entries(tensors)) {
        string(name);
        u32(tensor.shape.length);
        tensor.shape.forEach(u64);
        u32(tensor.type);
        u64(offset);
        offset += tensor.data.length;
    }
    const headerLength = parts.reduce((sum, part) => sum + part.length, 0);
    parts.push(Buffer.alloc((32 - (headerLength % 32)) % 32));
    parts.push(...Object.values(tensors).map((tensor) => tensor.data));
    return Buffer.concat(parts);
}

/** Q8_0 blocks of 32 values: an f16 scale (0x1c00 = 1/256) and 32 int8 from a fixed sequence. */
function q8Blocks(values) {
    const data = Buffer.alloc(values / 32 * 34);
    for (let at = 0; at < data.length; at += 34) {
        data.writeUInt16LE(0x1c00, at);
        for (let i = 0; i < 32; i++)
            data.writeInt8(((at + i * 37) % 255) - 127, at + 2 + i);
    }
    return data;
}

/**
 * Loads the check model with `llama` and evaluates a prompt of 16 tokens in one batch (llama.cpp's
 * matrix-matrix kernels), then 4 tokens one at a time (its matrix-vector kernels). Returns the
 * number of tokens generated; a broken build throws or kills the process.
 */
export async function runCheckModel(llama) {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-check-"));
    try {
        const modelPath = path.join(folder, "check-q8_0.gguf");
        fs.writeFileSync(modelPath, checkModelBytes());
        const model = await llama.loadModel({modelPath});
        try {
            const context = await model.createContext({contextSize: 256, batchSize: 64, sequences: 1});
            const prompt = Array.from({length: 16}, (_, i) => 259 + i);
            let generated = 0;
            for await (const _token of context.getSequence().evaluate(prompt, {temperature: 0, yieldEogToken: true})) {
                if (++generated === 4)
                    break;
            }
            return generated;
        } finally {
            await model.dispose();
        }
    } finally {
        fs.rmSync(folder, {recursive: true, force: true});
    }
}
