import {describe, expect, it} from "vitest";
import {draftVocabularyRefusal, type VocabularyFacts} from "../../../../src/engine/speculation/draftCompatibility.js";

const words = Array.from({length: 300}, (_, id) => `tok${id}`);
const target: VocabularyFacts = {type: "llama", bos: 1, eos: 2, addBos: true, addEos: false, tokens: words};

describe("draftVocabularyRefusal (llama.cpp's common_speculative_are_compatible)", () => {
    it("accepts the same tokenizer, and one that only adds up to 128 tokens at the end", () => {
        expect(draftVocabularyRefusal(target, {...target})).toBeNull();
        expect(draftVocabularyRefusal(target, {...target, tokens: [...words, ...Array.from({length: 128}, (_, id) => `extra${id}`)]})).toBeNull();
    });

    it("refuses another kind of tokenizer", () => {
        expect(draftVocabularyRefusal(target, {...target, type: "gpt2"})).toBe("its tokenizer is 'gpt2', the model's is 'llama'");
    });

    it("refuses a BOS added by one and not the other, or another BOS where both add it; an EOS likewise", () => {
        expect(draftVocabularyRefusal(target, {...target, addBos: false})).toMatch(/^its BOS token differs/);
        expect(draftVocabularyRefusal(target, {...target, bos: 3})).toMatch(/^its BOS token differs/);
        expect(draftVocabularyRefusal(target, {...target, addEos: true})).toMatch(/^its EOS token differs/);
        // An EOS neither adds may differ (llama.cpp compares the ids only where they are added).
        expect(draftVocabularyRefusal(target, {...target, eos: 7})).toBeNull();
        expect(draftVocabularyRefusal({...target, addEos: true}, {...target, addEos: true, eos: 7})).toMatch(/^its EOS token differs/);
    });

    it("refuses vocabularies more than 128 tokens apart in size", () => {
        const longer = [...words, ...Array.from({length: 129}, (_, id) => `extra${id}`)];
        expect(draftVocabularyRefusal(target, {...target, tokens: longer})).toBe("its vocabulary has 429 tokens, the model's 300 (at most 128 apart)");
    });

    it("refuses a token spelled otherwise from id 5 on, and lets the first five differ", () => {
        const renamed = words.map((word, id) => id === 250 ? "other" : word);
        expect(draftVocabularyRefusal(target, {...target, tokens: renamed})).toBe("its token 250 is \"other\", the model's \"tok250\"");
        const specials = words.map((word, id) => id < 5 ? `<special${id}>` : word);
        expect(draftVocabularyRefusal(target, {...target, tokens: specials})).toBeNull();
    });
});
