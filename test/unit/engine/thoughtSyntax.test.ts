import {LlamaText, SpecialTokensText, type ChatWrapper, type LlamaModel} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {thoughtSyntax} from "../../../src/engine/thoughtSyntax.js";

/** A model double: one token per character, but `singleTokens` are one token each; `special` ones detokenize to nothing. */
function fakeModel(chatTemplate: string | undefined, {singleTokens = ["<think>", "</think>"], special = [] as string[]} = {}): LlamaModel {
    const vocabulary = [...singleTokens];
    const tokenize = (text: string) => (singleTokens.includes(text) ? [text] : [...text]).map((piece) => {
        if (!vocabulary.includes(piece))
            vocabulary.push(piece);
        return vocabulary.indexOf(piece);
    });
    return {
        fileInfo: {metadata: {tokenizer: {chat_template: chatTemplate}}},
        tokenize,
        tokenizer: tokenize,
        detokenize: (tokens: number[]) => tokens.map((token) => special.includes(vocabulary[token]!) ? "" : vocabulary[token]).join("")
    } as unknown as LlamaModel;
}

function fakeWrapper(thought: object | undefined): ChatWrapper {
    return {settings: {segments: thought == null ? {} : {thought}}} as unknown as ChatWrapper;
}

const markers = {prefix: LlamaText(new SpecialTokensText("<think>\n")), suffix: LlamaText(new SpecialTokensText("\n</think>"))};
const chatml = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}";
/** QwQ's and DeepSeek R1's generation prompts end inside an open thought. */
const opensThought = chatml + "{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}";
/** Qwen3's writes an empty thought only when thinking is off; llama.cpp's copy of QwQ's opens one only when it is on. */
const qwen3Like = chatml + "{% if add_generation_prompt %}<|im_start|>assistant\n" +
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}";
const opensWhenThinking = chatml + "{% if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking %}<think>\n{% endif %}{% endif %}";

describe("thoughtSyntax", () => {
    it("reads the markers of a vocabulary that has each as one readable token", () => {
        const syntax = thoughtSyntax(fakeModel(qwen3Like), fakeWrapper(markers));
        expect(syntax).toMatchObject({open: "<think>", close: "</think>", opensEveryReply: false});
        expect(syntax!.openToken).not.toBe(syntax!.closeToken);
    });

    it("is none for a template that only declares markers, or markers that are special tokens", () => {
        expect(thoughtSyntax(fakeModel(chatml), fakeWrapper(undefined))).toBeUndefined();
        expect(thoughtSyntax(fakeModel(chatml, {singleTokens: []}), fakeWrapper(markers))).toBeUndefined();
        expect(thoughtSyntax(fakeModel(chatml, {special: ["<think>", "</think>"]}), fakeWrapper(markers))).toBeUndefined();
        // node-llama-cpp's "opened on start" prefixes (GLM-4.6's) are not text to split on.
        expect(thoughtSyntax(fakeModel(chatml), fakeWrapper({...markers, prefix: {type: "openedOnStart"}}))).toBeUndefined();
    });

    it("knows every reply opens a thought from the wrapper, or from the GGUF's own generation prompt", () => {
        expect(thoughtSyntax(fakeModel(opensThought), fakeWrapper(markers))?.opensEveryReply).toBe(true);
        expect(thoughtSyntax(fakeModel(opensWhenThinking), fakeWrapper(markers))?.opensEveryReply).toBe(true);
        expect(thoughtSyntax(fakeModel(chatml), fakeWrapper({...markers, openOnResponseStart: true}))?.opensEveryReply).toBe(true);
        expect(thoughtSyntax(fakeModel("{% if %}broken"), fakeWrapper(markers))?.opensEveryReply).toBe(false);
        expect(thoughtSyntax(fakeModel(undefined), fakeWrapper(markers))?.opensEveryReply).toBe(false);
    });
});
