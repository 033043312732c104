// chatserve's decode loop against the real node-llama-cpp: it generates what node-llama-cpp's own
// evaluate does, and leaves each sequence's bookkeeping as node-llama-cpp would, so its other
// operations (prefix matching, erasing, evaluating) go on working on that sequence.
import {getLlama, LlamaLogLevel, type LlamaContext, type LlamaContextSequence, type LlamaModel, type Token} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {DecodeSteps} from "../../../src/engine/decodeSteps.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";

const greedy = {temperature: 0};

async function evaluateGreedy(sequence: LlamaContextSequence, prompt: Token[], count: number): Promise<Token[]> {
    const tokens: Token[] = [];
    for await (const token of sequence.evaluate(prompt, greedy)) {
        tokens.push(token);
        if (tokens.length >= count)
            break;
    }
    return tokens;
}

async function stepGreedy(steps: DecodeSteps, sequence: LlamaContextSequence, prompt: Token[], count: number): Promise<Token[]> {
    const sampler = steps.sampler(sequence, greedy, false);
    const tokens: Token[] = [];
    try {
        let feed = prompt;
        while (tokens.length < count) {
            const token = await steps.step(sequence, feed, sampler);
            tokens.push(token);
            feed = [token];
        }
    } finally {
        sampler.dispose();
    }
    return tokens;
}

describe("DecodeSteps on node-llama-cpp", () => {
    let model: LlamaModel;
    let context: LlamaContext;
    let steps: DecodeSteps;
    let prompt: Token[];

    beforeAll(async () => {
        const llama = await getLlama({build: "never", gpu: false, maxThreads: 0, logLevel: LlamaLogLevel.error});
        model = await llama.loadModel({modelPath: await buildTinyChatModel()});
        context = await model.createContext({contextSize: 512, sequences: 5, threads: 1});
        steps = new DecodeSteps(context, 1, 1);
        prompt = model.tokenize("Once upon a time, in a quiet village by the sea,");
    });
    afterAll(async () => {
        await context?.dispose();
        await model?.dispose();
    });

    it("generates the tokens node-llama-cpp's own evaluate does, and leaves the sequence holding what it fed", async () => {
        const [reference, sequence, fresh] = [context.getSequence(), context.getSequence(), context.getSequence()];
        const expected = await evaluateGreedy(reference, prompt, 12);
        const generated = await stepGreedy(steps, sequence, prompt, 12);

        expect(generated).toEqual(expected);
        // The last sampled token is never fed back.
        expect(sequence.contextTokens).toEqual([...prompt, ...generated.slice(0, -1)]);
        expect(sequence.nextTokenIndex).toBe(prompt.length + generated.length - 1);

        // node-llama-cpp carries on from there as if it had generated those tokens itself.
        const [next] = await evaluateGreedy(sequence, [generated.at(-1)!], 1);
        const [alone] = await evaluateGreedy(fresh, [...prompt, ...generated], 1);
        expect(next).toBe(alone);
    });

    it("keeps each stream's tokens apart when streams share batches, and node-llama-cpp can erase what they left", async () => {
        const sequences = [context.getSequence(), context.getSequence()];
        const together = await Promise.all(sequences.map((sequence) => stepGreedy(steps, sequence, prompt, 10)));
        // Same prompt, same batch: the same reply, each in its own sequence.
        expect(together[1]).toEqual(together[0]);
        for (const sequence of sequences)
            expect(sequence.contextTokens).toEqual([...prompt, ...together[0]!.slice(0, -1)]);

        await sequences[0]!.eraseContextTokenRanges([{start: prompt.length, end: sequences[0]!.nextTokenIndex}]);
        expect(sequences[0]!.contextTokens).toEqual(prompt);
        expect(sequences[1]!.contextTokens).toHaveLength(prompt.length + 9);
    });
});
