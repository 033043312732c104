import {describe, expect, it} from "vitest";
import {LlamaErrorLog} from "../../../src/engine/llamaErrorLog.js";

describe("LlamaErrorLog", () => {
    it("gives the lines logged after a mark, and only the last 20 kept", () => {
        const log = new LlamaErrorLog();
        log.push("before");
        const mark = log.mark;
        expect(log.since(mark)).toEqual([]);
        log.push("unknown model architecture: 'llamz'");
        log.push("failed to load model");
        expect(log.since(mark)).toEqual(["unknown model architecture: 'llamz'", "failed to load model"]);

        for (let index = 0; index < 30; index++)
            log.push(`line ${index}`);
        expect(log.since(mark)).toHaveLength(20);
        expect(log.since(mark).at(-1)).toBe("line 29");
    });
});
