import {LlamaText, SpecialToken, type LlamaModel, type Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {promptCells, tokenizeWithImages} from "../../../../src/engine/vision/imagePrompt.js";
import {mediaMarkerFor} from "../../../../src/engine/vision/mediaMarker.js";
import type {TokenizedImage} from "../../../../src/engine/vision/nativeVision.js";

/** One token per character (code point), and 1 for BOS: enough to see where each piece went. */
const model = {
    tokenizer: (text: string, special?: boolean | "builtin") => special != null && special !== false && text === "BOS"
        ? [1 as Token]
        : Array.from(text, (char) => char.codePointAt(0)! as Token)
} as unknown as LlamaModel;

const image = (id: string, parts: Array<[string, number, number] | number[]>): TokenizedImage => ({
    handle: {id},
    parts: parts.map((part, index) => typeof part[0] === "string"
        ? {type: "image", index, tokens: part[1] as number, positions: part[2] as number, nonCausal: false, id: part[0] as string}
        : {type: "text", tokens: Uint32Array.from(part as number[])})
});

describe("a rendered prompt with images", () => {
    it("puts each image's parts where its marker was, one placeholder per position", () => {
        const rendered = LlamaText([new SpecialToken("BOS"), `ab${mediaMarkerFor(0)}c`, `d${mediaMarkerFor(1)}`, "e"]);
        const first = image("aaa", [[900], ["aaa", 3, 3], [901]]);
        const second = image("bbb", [["bbb", 6, 2]]);
        const {tokens, images} = tokenizeWithImages(model, rendered, [first, second], "messages");

        expect(images.map(({start, positions, cells}) => ({start, positions, cells}))).toEqual([
            {start: 4, positions: 3, cells: 3},
            {start: 10, positions: 2, cells: 6}
        ]);
        const [a, b] = images.map((placed) => placed.placeholder);
        expect(a).toBeLessThan(0);
        expect(a).not.toBe(b);
        expect(tokens).toEqual([1, 97, 98, 900, a, a, a, 901, 99, 100, b, b, 101]);
        expect(images[0]!.chunk).toEqual({handle: first.handle, index: 1, nonCausal: false});
        // An M-RoPE image takes more cells than positions: usage counts cells.
        expect(promptCells({tokens, images})).toBe(tokens.length + 4);
    });

    it("gives the same image the same placeholders, and refuses a template that lost an image", () => {
        const rendered = LlamaText([`x${mediaMarkerFor(0)}`]);
        const once = tokenizeWithImages(model, rendered, [image("same", [["same", 2, 2]])], "messages");
        const again = tokenizeWithImages(model, rendered, [image("same", [["same", 2, 2]])], "messages");
        expect(again.tokens).toEqual(once.tokens);
        expect(() => tokenizeWithImages(model, LlamaText(["no marker"]), [image("lost", [["lost", 2, 2]])], "messages"))
            .toThrow(/dropped or repeated an image/);
        expect(() => tokenizeWithImages(model, LlamaText([`${mediaMarkerFor(0)}${mediaMarkerFor(0)}`]), [image("a", [["a", 2, 2]]), image("b", [["b", 2, 2]])], "messages"))
            .toThrow(/dropped or repeated an image/);
    });

    it("puts each image where the template rendered its marker, whatever the order", () => {
        // Tool results render by their calls: the second image's marker can come first.
        const rendered = LlamaText([`${mediaMarkerFor(1)}|${mediaMarkerFor(0)}`]);
        const {tokens, images} = tokenizeWithImages(model, rendered, [image("first", [["first", 1, 1]]), image("second", [["second", 1, 1]])], "messages");
        expect(images.map((placed) => placed.chunk.handle)).toEqual([{id: "second"}, {id: "first"}]);
        expect(tokens[1]).toBe(124);
    });
});
