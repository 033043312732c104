import {LlamaText} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {createReplyShaper} from "../../../../src/engine/reply/createReplyShaper.js";
import type {ReplyGrammars} from "../../../../src/engine/reply/grammars.js";
import {HarmonyReply} from "../../../../src/engine/reply/harmonyReply.js";
import {ThoughtReply} from "../../../../src/engine/reply/thoughtReply.js";
import type {GenerationOptions} from "../../../../src/engine/generationOptions.js";
import type {PreparedPrompt} from "../../../../src/engine/preparedPrompt.js";

/** Grammars stand-in: a token is a character code, Harmony's markers one token each. */
const markers = ["<|channel|>", "<|message|>"];
const grammars = {
    tokenize: (text: LlamaText | string) => (typeof text === "string" ? text : text.toString()).split(/(<\|channel\|>|<\|message\|>)/)
        .flatMap((piece) => markers.includes(piece) ? [2000 + markers.indexOf(piece)] : [...piece].map((char) => char.charCodeAt(0))),
    json: (schema: unknown) => ({grammar: "json", schema})
} as unknown as ReplyGrammars;

const options = (format: GenerationOptions["format"]) => ({format, stop: []}) as unknown as GenerationOptions;
const harmony: PreparedPrompt = {tokens: [], stopTokens: [], stopStrings: [], harmony: true};

describe("createReplyShaper", () => {
    it("a Harmony model's JSON answer is its final channel's message: the header is forced first", () => {
        expect(createReplyShaper(harmony, options({type: "json", schema: {type: "object"}}), grammars).opening.tokens)
            .toEqual(grammars.tokenize("<|channel|>final<|message|>"));
    });

    it("a Harmony model's free reply is read by its channels; another reasoning model's by its thought markers", () => {
        expect(createReplyShaper(harmony, options({type: "text"}), grammars)).toBeInstanceOf(HarmonyReply);
        const thinking = {...harmony, harmony: false, thought: {open: "<think>", close: "</think>", opened: false}};
        expect(createReplyShaper(thinking, options({type: "text"}), grammars)).toBeInstanceOf(ThoughtReply);
        expect(createReplyShaper(thinking, options({type: "json", schema: null}), grammars).opening.tokens).toEqual([]);
    });
});
