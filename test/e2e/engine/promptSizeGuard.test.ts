// The slice-by-slice count that refuses oversized prompts early (src/engine/promptSizeGuard.ts)
// must never count more tokens than the whole text has, or it would refuse a prompt that fits.
// Checked against real tokenizers: the tiny model's SentencePiece vocab, and ../shared's when present.
import {getLlama, LlamaLogLevel, type Llama} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {countTokensAtLeast} from "../../../src/engine/promptSizeGuard.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../support/sharedModels.js";

const prose = Array.from({length: 16_000}, (_, index) => ["The", "cat", "sat", "on", "the", "mat,", "ünïcödé", "日本語の文", "😀!", "it's"][index % 10]).join(" ");
const code = Array.from({length: 2_500}, (_, index) => `    if (x${index} > ${index}) {\n        return   foo(x${index});\n    }\n`).join("");
const texts = {
    prose,
    code,
    "runs of spaces and newlines": "a" + " ".repeat(50_000) + "b\n\n\n".repeat(8_000),
    "special-token text": "<|im_start|>user hello<|im_end|> ".repeat(3_000),
    "no whitespace at all": "abcdefghij".repeat(8_000)
};

const models: Record<string, () => Promise<string>> = {
    "tiny SentencePiece": () => buildTinyChatModel(),
    ...(hasSharedModels ? {
        "Llama 2 (SentencePiece)": async () => sharedModels.llama2TinyRandom,
        "Qwen2 (BPE)": async () => sharedModels.qwenTools,
        "Llama 3 (BPE)": async () => sharedModels.llama32Tools
    } : {})
};

describe("countTokensAtLeast on real tokenizers", () => {
    let llama: Llama;
    beforeAll(async () => {
        llama = await getLlama({build: "never", gpu: false, maxThreads: 1, logLevel: LlamaLogLevel.error});
    });
    afterAll(async () => llama?.dispose());

    it.each(Object.keys(models))("never exceeds the whole text's count, and stays close to it (%s)", async (name) => {
        const model = await llama.loadModel({modelPath: await models[name]!(), vocabOnly: true});
        try {
            for (const [kind, text] of Object.entries(texts)) {
                expect(text.length, kind).toBeGreaterThan(2 * 32_768);
                const exact = Math.min(model.tokenize(text, false).length, model.tokenize(text, true).length);
                const atLeast = await countTokensAtLeast(model, [text], Infinity);
                expect(atLeast, kind).toBeLessThanOrEqual(exact);
                expect(atLeast, kind).toBeGreaterThan(exact * 0.9);
            }
        } finally {
            await model.dispose();
        }
    });
});
