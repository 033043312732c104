// The constrained-decoding biases on a real vocabulary (the tiny tools model's, with SentencePiece byte tokens).
import {getLlama, LlamaLogLevel, type LlamaModel, type Token, type TokenBias} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {ReplyGrammars} from "../../src/engine/reply/grammars.js";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";

/** node-llama-cpp keeps a bias's entries in `_biases` (3.x). */
const banned = (bias: TokenBias, token: Token) => (bias as unknown as {_biases: Map<Token, number>})._biases.get(token) === -Infinity;

describe("ReplyGrammars.nextBias", () => {
    let model: LlamaModel;
    beforeAll(async () => {
        const llama = await getLlama({build: "never", gpu: false, maxThreads: 0, logLevel: LlamaLogLevel.error});
        model = await llama.loadModel({modelPath: await buildTinyChatModel(undefined, {tools: true})});
    });
    afterAll(async () => model?.dispose());

    it("adds the bans that keep UTF-8 valid after E0 to the shaper's own bias, not in its place", () => {
        const grammars = new ReplyGrammars(model);
        const vocabulary = model.fileInfo.metadata.tokenizer.ggml.tokens;
        const byte = (value: number) => vocabulary.indexOf(`<0x${value.toString(16).toUpperCase()}>`) as Token;
        const call = grammars.tokenize("<tool_call>")[0]!;
        const noCalls = grammars.banning("<tool_call>");

        expect(grammars.nextBias(noCalls, byte(0x41))).toBe(noCalls);
        const afterE0 = grammars.nextBias(noCalls, byte(0xE0));
        expect([banned(afterE0, call), banned(afterE0, byte(0x90)), banned(afterE0, byte(0xA0)), banned(afterE0, byte(0xC0))]).toEqual([true, true, false, true]);
        // Without a shaper's bias: the constrained one, with the same bans after E0.
        expect(banned(grammars.nextBias(undefined, byte(0xE0)), byte(0x90))).toBe(true);
        expect(banned(grammars.nextBias(undefined, byte(0x41)), byte(0x90))).toBe(false);
    });
});
