import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {inspectGguf} from "../../../src/models/ggufInspection.js";
import {UnloadableModelError} from "../../../src/models/ggufLoadChecks.js";
import {missingByteTokenProblem} from "../../../src/models/ggufVocabularyChecks.js";
import {noByteTokensModelFile} from "../../fixtures/gguf/brokenModels.js";
import {encodeGguf, str} from "../../fixtures/gguf/ggufWriter.js";
import {tinyChatModelFile} from "../../fixtures/gguf/tinyModels.js";

// A SentencePiece vocabulary spells an unknown character as byte tokens; one it cannot spell made
// llama.cpp throw out of its tokenizer and abort the process at the first request holding it
// (tried: noByteTokensModelFile, on "é"). Such a vocabulary is refused from the header.

let dir: string;
beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-vocabulary-"));
});
afterAll(async () => {
    await fs.rm(dir, {recursive: true, force: true});
});

const hex = (byte: number) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`;
const allBytes = Array.from({length: 256}, (_, byte) => hex(byte));
const without = (...bytes: number[]) => allBytes.filter((token) => !bytes.some((byte) => token === hex(byte)));

describe("a SentencePiece vocabulary's byte tokens", () => {
    it("refuses a model without them, naming how many bytes it cannot spell", async () => {
        const target = path.join(dir, "no-bytes.gguf");
        await fs.writeFile(target, encodeGguf(noByteTokensModelFile()));
        const inspecting = inspectGguf(target);
        await expect(inspecting).rejects.toBeInstanceOf(UnloadableModelError);
        await expect(inspecting).rejects.toThrow(/^its SentencePiece vocabulary has no token for 154 bytes \(<0x00>, <0x01>, <0x02>, <0x03>, …\), so llama\.cpp aborts/);
    });

    it("passes the tiny chat model, which has all 256", async () => {
        const target = path.join(dir, "bytes.gguf");
        await fs.writeFile(target, encodeGguf(tinyChatModelFile()));
        await expect(inspectGguf(target)).resolves.toMatchObject({architecture: "llama"});
    });

    it("refuses one missing byte that UTF-8 text can hold", () => {
        expect(missingByteTokenProblem(["<unk>", ...without(0xC3)])).toMatch(/no token for 1 byte \(<0xC3>\)/);
        expect(missingByteTokenProblem(["<unk>", ...without(0x80)])).toMatch(/no token for 1 byte \(<0x80>\)/);
    });

    it("takes the byte itself as a one-byte token instead, as llama.cpp falls back to (but not for byte 0)", () => {
        expect(missingByteTokenProblem([...without(0x41, 0xC3), "A", "\u00C3"])).toBeUndefined();
        expect(missingByteTokenProblem([...without(0x00), "\u0000"])).toMatch(/\(<0x00>\)/);
    });

    it("needs no token for bytes UTF-8 never holds, nor for the space SentencePiece replaces with ▁", () => {
        expect(missingByteTokenProblem(without(0x20, 0xC0, 0xC1, 0xF5, 0xFF))).toBeUndefined();
    });

    it("leaves other tokenizers alone: a BPE vocabulary needs no byte tokens", async () => {
        const file = noByteTokensModelFile();
        const target = path.join(dir, "bpe.gguf");
        await fs.writeFile(target, encodeGguf({...file, metadata: {...file.metadata, "tokenizer.ggml.model": str("gpt2"), "tokenizer.ggml.merges": {type: "string[]", value: []}}}));
        await expect(inspectGguf(target)).resolves.toMatchObject({architecture: "llama"});
    });
});
