// OpenAI's Predicted Outputs through a real server and the official SDK: a prediction that is
// right, half right or wrong never changes the reply (temperature 0, streamed and not, with stop
// sequences, with a seed), and usage counts the prediction's tokens the reply reproduced (accepted)
// and the others (rejected), exactly: the expected counts come from the model's own tokenizer.
import {getLlama, LlamaLogLevel, type LlamaModel} from "node-llama-cpp";
import type OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

type Reply = {text: string, finish: string | null, details: Record<string, number | undefined> | undefined};
type Options = {prediction?: string, stop?: string[], temperature?: number, seed?: number, max_tokens?: number};

function predictedOutputs(label: string, modelFile: () => Promise<string>) {
    describe(`Predicted Outputs on ${label}`, () => {
        let server: TestServer;
        let client: OpenAI;
        let tokenizer: LlamaModel;
        const model = "m";
        const messages = [{role: "user" as const, content: "Tell me a story about a lighthouse."}];
        const tokens = (text: string) => tokenizer.tokenize(text, false).length;

        beforeAll(async () => {
            const file = await modelFile();
            // Room for the prompt and 64 tokens whatever the model writes: every reply here is capped.
            server = await startTestServer({[model]: file}, {parallel: 2, ctxSize: 512});
            client = server.client();
            const llama = await getLlama({build: "never", gpu: false, logLevel: LlamaLogLevel.error});
            tokenizer = await llama.loadModel({modelPath: file, vocabOnly: true});
        });
        afterAll(async () => {
            await tokenizer?.dispose();
            await server?.stop();
        });

        const body = ({prediction, max_tokens = 64, temperature = 0, ...rest}: Options) => ({
            model, messages, max_tokens, temperature, ...rest, ...(prediction == null ? {} : {prediction: {type: "content" as const, content: prediction}})
        });
        const ask = async (options: Options): Promise<Reply> => {
            const completion = await client.chat.completions.create(body(options));
            return {text: completion.choices[0]!.message.content ?? "", finish: completion.choices[0]!.finish_reason, details: completion.usage?.completion_tokens_details as Reply["details"]};
        };
        const askStreamed = async (options: Options): Promise<Reply> => {
            const stream = await client.chat.completions.create({...body(options), stream: true, stream_options: {include_usage: true}});
            let text = "";
            let finish: string | null = null;
            let details: Reply["details"];
            for await (const chunk of stream) {
                text += chunk.choices[0]?.delta.content ?? "";
                finish = chunk.choices[0]?.finish_reason ?? finish;
                details = (chunk.usage?.completion_tokens_details as Reply["details"]) ?? details;
            }
            return {text, finish, details};
        };

        it("gives the same reply with a right, a half-right and a wrong prediction, streamed and not, and counts their tokens", async () => {
            const plain = await ask({});
            expect(plain.text.length).toBeGreaterThan(20);
            expect(plain.details?.accepted_prediction_tokens).toBeUndefined();
            const half = plain.text.slice(0, Math.floor(plain.text.length / 2));
            const halfRight = `${half} and then the keeper sold the lighthouse to a baker from the city`;
            const wrong = "A table of contents: one, two, three, four, five.";
            for (const send of [ask, askStreamed]) {
                const right = await send({prediction: plain.text});
                expect(right).toMatchObject({text: plain.text, finish: plain.finish});
                expect(right.details).toMatchObject({accepted_prediction_tokens: tokens(plain.text), rejected_prediction_tokens: 0});

                const halfReply = await send({prediction: halfRight});
                expect(halfReply.text).toBe(plain.text);
                const accepted = halfReply.details!.accepted_prediction_tokens!;
                // Of the half that was right, every token but maybe the one the cut went through.
                expect(accepted).toBeGreaterThanOrEqual(tokens(half) - 1);
                expect(accepted).toBeLessThanOrEqual(tokens(half));
                expect(accepted + halfReply.details!.rejected_prediction_tokens!).toBe(tokens(halfRight));

                const wrongReply = await send({prediction: wrong});
                expect(wrongReply.text).toBe(plain.text);
                expect(wrongReply.details).toMatchObject({accepted_prediction_tokens: 0, rejected_prediction_tokens: tokens(wrong)});
            }
        });

        it("ends at a stop sequence where the reply without a prediction ends", async () => {
            const full = await ask({});
            const stop = full.text.slice(Math.floor(full.text.length / 2), Math.floor(full.text.length / 2) + 3);
            const plain = await ask({stop: [stop]});
            expect(plain.finish).toBe("stop");
            for (const send of [ask, askStreamed])
                expect(await send({stop: [stop], prediction: full.text})).toMatchObject({text: plain.text, finish: "stop"});
        });

        it("samples as without a prediction: the same seed gives the same reply", async () => {
            const plain = await ask({temperature: 0.9, seed: 7});
            expect(await ask({temperature: 0.9, seed: 7, prediction: plain.text})).toMatchObject({text: plain.text});
        });

        it("keeps a stream without a prediction as it is alone while another speculates beside it", async () => {
            const [alone, predicted] = await Promise.all([ask({max_tokens: 48}), ask({max_tokens: 48})]);
            const [beside, speculating] = await Promise.all([askStreamed({max_tokens: 48}), askStreamed({max_tokens: 48, prediction: predicted!.text})]);
            expect(beside.text).toBe(alone!.text);
            expect(speculating.text).toBe(predicted!.text);
            expect(speculating.details?.rejected_prediction_tokens).toBe(0);
        });
    });
}

predictedOutputs("a tiny random model", () => buildTinyChatModel());
if (hasSharedModels)
    predictedOutputs("stories260K (real text)", async () => sharedModels.stories260K);
