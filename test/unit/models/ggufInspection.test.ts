import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {inspectGguf, quantizationName} from "../../../src/models/ggufInspection.js";
import {encodeGguf, str, u32, type GgufMetadata} from "../../fixtures/gguf/ggufWriter.js";

async function modelHeader(metadata: GgufMetadata): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-gguf-"));
    const file = path.join(dir, "model.gguf");
    await fs.writeFile(file, encodeGguf({metadata: {"general.architecture": str("llama"), ...metadata}, tensors: []}));
    return file;
}

const u64 = (value: bigint) => {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64LE(value);
    return bytes;
};
const u32le = (value: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32LE(value);
    return bytes;
};

/** A GGUF v3 header with the given counts, then `padding` zero bytes (a truncated file), or `body`. */
async function headerFile(tensors: bigint, entries: bigint, padding: number, body = Buffer.alloc(padding)): Promise<string> {
    const header = Buffer.concat([Buffer.alloc(24), body]);
    header.write("GGUF", 0, "latin1");
    header.writeUInt32LE(3, 4);
    header.writeBigUInt64LE(tensors, 8);
    header.writeBigUInt64LE(entries, 16);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-gguf-"));
    const file = path.join(dir, "broken.gguf");
    await fs.writeFile(file, header);
    return file;
}

describe("inspectGguf", () => {
    it("refuses at once a header that claims more entries than the file can hold, instead of parsing zeros for ever", async () => {
        const file = await headerFile(26n, 1n << 40n, 5000);
        await expect(inspectGguf(file)).rejects.toThrow("claims 1099511627776 metadata entries and 26 tensors, more than a file of 5024 bytes can hold");
    });

    // node-llama-cpp read such an array element by element until its 10 s timeout, growing memory by ~700 MB.
    it.each([
        ["an array of 2^40 bytes", [u64(0n), u32le(9), u32le(0), u64(1n << 40n)], "array claims 1099511627776 items"],
        ["an array of 2^30 arrays", [u64(0n), u32le(9), u32le(9), u64(1n << 30n)], "array claims 1073741824 items"],
        ["a string of 2^40 bytes", [u64(0n), u32le(8), u64(1n << 40n)], "claims 1099511627776 bytes"],
        ["a key of 2^40 bytes", [u64(1n << 40n)], "key claims 1099511627776 bytes"],
        ["an unknown type", [u64(0n), u32le(99)], "unknown type (99)"]
    ])("refuses at once a metadata entry with %s, more than the file can hold", async (_case, entry, message) => {
        // One real entry (general.architecture = "llama"), then the bad one; a key of length 0 keeps it short.
        const architecture = [u64(20n), Buffer.from("general.architecture"), u32le(8), u64(5n), Buffer.from("llama")];
        const file = await headerFile(0n, 2n, 0, Buffer.concat([...architecture, ...entry, Buffer.alloc(200)]));
        await expect(inspectGguf(file)).rejects.toThrow(message);
    });

    it("refuses a file that is not a GGUF", async () => {
        const file = await headerFile(0n, 0n, 0);
        await fs.writeFile(file, "hello, not a model");
        await expect(inspectGguf(file)).rejects.toThrow(/GGUF/);
    });

    it("lists fill-in-the-middle only when the header names all three tokens, as llama.cpp's infill needs", async () => {
        const ids = {pre: u32(1), suf: u32(2), mid: u32(3)};
        const all = await modelHeader({"tokenizer.ggml.fim_pre_token_id": ids.pre, "tokenizer.ggml.fim_suf_token_id": ids.suf, "tokenizer.ggml.fim_mid_token_id": ids.mid});
        const older = await modelHeader({"tokenizer.ggml.prefix_token_id": ids.pre, "tokenizer.ggml.suffix_token_id": ids.suf, "tokenizer.ggml.middle_token_id": ids.mid});
        const prefixOnly = await modelHeader({"tokenizer.ggml.prefix_token_id": ids.pre});
        expect((await inspectGguf(all)).capabilities).toContain("fim");
        expect((await inspectGguf(older)).capabilities).toContain("fim");
        expect((await inspectGguf(prefixOnly)).capabilities).not.toContain("fim");
    });

    it("lists tools where a template lists tools or writes calls, in the template or its tool_use variant", async () => {
        const capabilities = async (metadata: GgufMetadata) => (await inspectGguf(await modelHeader(metadata))).capabilities;
        expect(await capabilities({"tokenizer.chat_template": str("{% for tool in tools %}{{ tool | tojson }}{% endfor %}")})).toContain("tools");
        // DeepSeek R1's writes calls without a tool list; Hermes 2 Pro's keeps tools in tool_use.
        expect(await capabilities({"tokenizer.chat_template": str("{% for call in message.tool_calls %}{{ call.function.name }}{% endfor %}")})).toContain("tools");
        expect(await capabilities({"tokenizer.chat_template": str("{{ messages }}"), "tokenizer.chat_template.tool_use": str("{{ tools }}")})).toContain("tools");
        expect(await capabilities({"tokenizer.chat_template": str("{% for m in messages %}{{ m.content }}{% endfor %}")})).not.toContain("tools");
    });

    it("lists thinking where the chat template writes thoughts (Qwen3's), not for a plain ChatML one nor an encoder", async () => {
        const qwen3 = await fs.readFile(new URL("../../fixtures/templates/Qwen-Qwen3-0.6B.jinja", import.meta.url), "utf8");
        const chatml = "{% for message in messages %}{{ '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}{% endfor %}" +
            "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
        expect((await inspectGguf(await modelHeader({"tokenizer.chat_template": str(qwen3)}))).capabilities).toEqual(["chat", "completion", "tools", "thinking"]);
        expect((await inspectGguf(await modelHeader({"tokenizer.chat_template": str(chatml)}))).capabilities).toEqual(["chat", "completion"]);
        expect((await inspectGguf(await modelHeader({"tokenizer.chat_template": str("{% if %}")}))).capabilities).toEqual(["chat", "completion"]);
        const encoder = await modelHeader({"general.architecture": str("bert"), "tokenizer.chat_template": str(qwen3)});
        expect((await inspectGguf(encoder)).capabilities).toEqual(["embeddings"]);
    });

    it("lists rerank, and nothing else, for a model whose pooling is rank, encoder (BERT) or decoder (Qwen3-Reranker)", async () => {
        const qwen3 = await fs.readFile(new URL("../../fixtures/templates/Qwen-Qwen3-0.6B.jinja", import.meta.url), "utf8");
        const bert = await modelHeader({"general.architecture": str("bert"), "bert.pooling_type": u32(4)});
        expect((await inspectGguf(bert)).capabilities).toEqual(["rerank"]);
        const qwen3Reranker = await modelHeader({"general.architecture": str("qwen3"), "qwen3.pooling_type": u32(4), "tokenizer.chat_template": str(qwen3)});
        expect((await inspectGguf(qwen3Reranker)).capabilities).toEqual(["rerank"]);
        const qwen3Embedding = await modelHeader({"general.architecture": str("qwen3"), "qwen3.pooling_type": u32(3), "tokenizer.chat_template": str(qwen3)});
        expect((await inspectGguf(qwen3Embedding)).capabilities).toEqual(["embeddings", "chat", "completion", "tools", "thinking"]);
    });

    it("names the quantization from general.file_type, as file names write it", async () => {
        expect((await inspectGguf(await modelHeader({"general.file_type": u32(15)}))).quantization).toBe("Q4_K_M");
        expect((await inspectGguf(await modelHeader({}))).quantization).toBeUndefined();
        expect([0, 1, 7, 30, 32].map(quantizationName)).toEqual(["F32", "F16", "Q8_0", "IQ4_XS", "BF16"]);
        expect(quantizationName(999)).toBe("file type 999");
    });
});
