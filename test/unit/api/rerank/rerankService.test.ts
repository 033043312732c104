import {describe, expect, it} from "vitest";
import {ranked} from "../../../../src/api/rerank/rerankService.js";

describe("ranked", () => {
    it("orders best first, keeps the documents' order among equal scores, and keeps the top n", () => {
        expect(ranked([0.2, 0.9, 0.2, 0.5], 4)).toEqual([{index: 1, score: 0.9}, {index: 3, score: 0.5}, {index: 0, score: 0.2}, {index: 2, score: 0.2}]);
        expect(ranked([0.2, 0.9, 0.2, 0.5], 2).map((result) => result.index)).toEqual([1, 3]);
        expect(ranked([0.1], 10)).toHaveLength(1);
    });
});
