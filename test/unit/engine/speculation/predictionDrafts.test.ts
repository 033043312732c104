import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {PredictionDrafts} from "../../../../src/engine/speculation/predictionDrafts.js";

/** A tokenizer double: a word with the spaces before it is one token; any string can be a token (a model may spell text its own way). */
function vocabulary() {
    const ids = new Map<string, number>();
    const pieces: string[] = [];
    const id = (piece: string) => {
        if (!ids.has(piece)) {
            ids.set(piece, pieces.length);
            pieces.push(piece);
        }
        return ids.get(piece)! as Token;
    };
    return {
        id,
        /** The tokens a model writes `text` in: these pieces, as given. */
        spell: (...texts: string[]) => texts.map(id),
        reader: {
            tokenize: (text: string) => (text.match(/\s*\S+|\s+/g) ?? []).map(id),
            detokenize: (tokens: readonly Token[]) => tokens.map((token) => pieces[token]!).join("")
        }
    };
}

describe("PredictionDrafts", () => {
    it("drafts the prediction's tokens from its start, and counts every one the reply reproduced", () => {
        const words = vocabulary();
        const prediction = new PredictionDrafts("one two three four", words.reader, []);
        expect(prediction.propose(2)).toEqual(words.spell("one", " two"));
        prediction.observe(words.spell("one", " two"));
        expect(prediction.propose(5)).toEqual(words.spell(" three", " four"));
        prediction.observe(words.spell(" three", " four", " five"));
        expect(prediction.propose(5)).toEqual([]);
        expect([prediction.accepted, prediction.rejected]).toEqual([4, 0]);
    });

    it("follows the reply by its text when the model spells it in other tokens, and drafts the rest of a token it stopped inside", () => {
        const words = vocabulary();
        const prediction = new PredictionDrafts("alpha beta gamma", words.reader, []);
        // The model writes "alpha" as "al" + "pha", and " beta" as " be" + "ta".
        prediction.observe(words.spell("al"));
        expect(prediction.propose(2)).toEqual(words.spell("pha", " beta"));
        prediction.observe(words.spell("pha", " be"));
        expect(prediction.propose(2)).toEqual(words.spell("ta", " gamma"));
        prediction.observe(words.spell("ta", " gamma"));
        expect([prediction.accepted, prediction.rejected]).toEqual([3, 0]);
    });

    it("loses the prediction at an edit and finds it again by the reply's last characters, forward of the edit", () => {
        const words = vocabulary();
        const text = "the cat sat on the mat and the dog sat on the log";
        const prediction = new PredictionDrafts(text, words.reader, []);
        // The reply changes "cat" into "bird" and then goes on as predicted.
        prediction.observe(words.reader.tokenize("the bird"));
        expect(prediction.propose(3)).toEqual([]);
        prediction.observe(words.reader.tokenize(" sat on the mat"));
        // Sixteen characters of the reply past the edit find the prediction again; fewer do not.
        expect(prediction.propose(3)).toEqual([]);
        prediction.observe(words.reader.tokenize(" and"));
        expect(prediction.propose(2)).toEqual(words.spell(" the", " dog"));
        prediction.observe(words.reader.tokenize(" the dog sat on the log"));
        // Of 13 predicted words, " cat" never made it into the reply.
        expect([prediction.accepted, prediction.rejected]).toEqual([12, 1]);
    });

    it("rejects a wrong prediction whole, and a prediction the reply stops short of in its unreproduced part", () => {
        const words = vocabulary();
        const wrong = new PredictionDrafts("red green blue", words.reader, []);
        wrong.observe(words.reader.tokenize("nothing of the kind at all, not one word"));
        expect([wrong.accepted, wrong.rejected]).toEqual([0, 3]);
        const cut = new PredictionDrafts("red green blue", words.reader, []);
        cut.observe(words.spell("red", " gr"));
        expect([cut.accepted, cut.rejected]).toEqual([1, 2]);
    });

    it("waits for a character split across tokens before reading the reply's text", () => {
        const words = vocabulary();
        const prediction = new PredictionDrafts("é ok", words.reader, []);
        prediction.observe(words.spell("\uFFFD"));
        expect(prediction.propose(1)).toEqual(words.spell("é"));
    });
});
