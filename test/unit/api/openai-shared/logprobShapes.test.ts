import {describe, expect, it} from "vitest";
import type {Token} from "node-llama-cpp";
import {ContentLogprobs} from "../../../../src/api/openai-chat/contentLogprobs.js";
import {CompletionLogprobsBuilder} from "../../../../src/api/openai-completions/completionLogprobs.js";
import type {TokenLogprob} from "../../../../src/engine/generationEvents.js";
import {logSoftmax} from "../../../../src/engine/tokenLogprobs.js";
import {choiceCount} from "../../../../src/api/openai-shared/choiceCount.js";
import {toLogitBias} from "../../../../src/conversation/logitBias.js";

const token = (text: string, logprob: number, top: Array<[string, number]> = [], special = false): TokenLogprob => ({
    token: text, bytes: [...Buffer.from(text)], logprob, special, top: top.map(([alternative, value]) => ({token: alternative, bytes: [...Buffer.from(alternative)], logprob: value}))
});

describe("logprob shapes", () => {
    it("computes the log-softmax from the top logits and the total weight", () => {
        const logits = [3, 1, 0];
        const weight = logits.reduce((sum, logit) => sum + Math.exp(logit - 3), 0);
        const token = (id: number) => id as Token;
        const {chosen, top} = logSoftmax({top: [[token(5), 3], [token(6), 1]], chosen: [token(7), 0], weight});
        const normalizer = Math.log(logits.reduce((sum, logit) => sum + Math.exp(logit), 0));
        expect(top).toEqual([3 - normalizer, 1 - normalizer].map((value) => expect.closeTo(value, 10)));
        expect(chosen).toBeCloseTo(0 - normalizer, 10);
    });

    it("gives chat content chunks the tokens of their text, in OpenAI's field order, dropping what never became content", () => {
        const logprobs = new ContentLogprobs();
        logprobs.add(token("Hi", -0.1, [["Hi", -0.1], ["Hey", -2]]));
        expect(logprobs.takeForText()).toEqual([{token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [
            {token: "Hi", logprob: -0.1, bytes: [72, 105]}, {token: "Hey", logprob: -2, bytes: [72, 101, 121]}
        ]}]);
        expect(Object.keys(logprobs.forReply()!.content![0]!)).toEqual(["token", "logprob", "bytes", "top_logprobs"]);
        logprobs.add(token("<think>", -1));
        logprobs.discard();
        logprobs.add(token("STOP", -1));
        expect(logprobs.forReply()).toEqual({content: [expect.objectContaining({token: "Hi"})], refusal: null});
    });

    it("builds legacy logprobs: the prompt's first null, top maps with the chosen token, offsets from the prompt's start", () => {
        const builder = new CompletionLogprobsBuilder(0);
        builder.addPrompt({token: "<s>", bytes: [], special: true}, [token("Once", -3, [["The", -1]])]);
        builder.add(token(" upon", -0.5, [[" upon", -0.5]]));
        expect(builder.takeForText()).toEqual({tokens: [" upon"], token_logprobs: [-0.5], top_logprobs: [{" upon": -0.5}], text_offset: [4]});
        expect(builder.forChoice()).toEqual({
            tokens: ["<s>", "Once", " upon"],
            token_logprobs: [null, -3, -0.5],
            top_logprobs: [null, {The: -1, Once: -3}, {" upon": -0.5}],
            text_offset: [0, 0, 4]
        });
        const plain = new CompletionLogprobsBuilder(11);
        plain.add(token("x", -1));
        expect(plain.takeForText()).toMatchObject({top_logprobs: [{x: -1}], text_offset: [11]});
    });

    it("reads logit_bias: -100 bans, 0 is dropped, ids beyond the vocabulary are refused", () => {
        expect(toLogitBias({"5": -100, "6": 0, "7": 2.5})).toEqual(new Map([[5, -Infinity], [7, 2.5]]));
        expect(toLogitBias({})).toBeUndefined();
        expect(() => toLogitBias({"512": 1}, 512)).toThrow(/not in this model's vocabulary/);
    });

    it("bounds prompts × n", () => {
        expect(choiceCount(undefined)).toBe(1);
        expect(choiceCount(4, 32)).toBe(128);
        expect(() => choiceCount(129)).toThrow(/at most 128/);
        expect(() => choiceCount(1, 129)).toThrow(expect.objectContaining({param: "prompt"}));
    });
});
