import {resolveChatWrapper, type ChatHistoryItem, type ChatWrapper, type LlamaContext, type LlamaContextSequence, type LlamaModel, type Token} from "node-llama-cpp";
import {ServiceShuttingDownError} from "../errors.js";
import {renderChatPrompt} from "./chatPrompt.js";
import type {LlamaRuntime} from "./llamaRuntime.js";
import {generateOnSequence} from "./sequenceGeneration.js";
import {SequencePool} from "./sequencePool.js";
import type {GenerationOptions, LoadedModel, PreparedPrompt, SequenceLease} from "./types.js";

export type ModelLoadOptions = {
    path: string,
    /** Context per sequence; capped at the model's trained context. */
    contextSize: number,
    /** Sequences evaluated together in shared batches (concurrent requests). */
    parallel: number,
    maxQueue: number
};

/**
 * A GGUF model loaded through node-llama-cpp: its weights, one context split into `parallel`
 * sequences of `contextSize` tokens each (a request never gets less than what /v1/models reports),
 * and the chat template it renders prompts with. Owns and disposes all three.
 */
export class LlamaLoadedModel implements LoadedModel {
    private readonly pool: SequencePool<LlamaContextSequence>;

    private constructor(
        private readonly model: LlamaModel,
        private readonly context: LlamaContext,
        private readonly chatWrapper: ChatWrapper,
        sequences: LlamaContextSequence[],
        maxQueue: number
    ) {
        this.pool = new SequencePool(sequences, maxQueue);
    }

    public static async load(runtime: LlamaRuntime, options: ModelLoadOptions): Promise<LlamaLoadedModel> {
        const model = await runtime.llama.loadModel({modelPath: options.path});
        try {
            const context = await model.createContext({
                contextSize: Math.min(options.contextSize, model.trainContextSize),
                sequences: options.parallel,
                threads: runtime.threads
            });
            const sequences = Array.from({length: options.parallel}, () => context.getSequence());
            const chatWrapper = resolveChatWrapper(model);
            return new LlamaLoadedModel(model, context, chatWrapper, sequences, options.maxQueue);
        } catch (error) {
            await model.dispose();
            throw error;
        }
    }

    public get contextLength(): number {
        return this.context.contextSize;
    }

    public prepareChat(history: ChatHistoryItem[]): PreparedPrompt {
        return renderChatPrompt(this.model, this.chatWrapper, history);
    }

    public async acquireSequence(prompt: PreparedPrompt, signal: AbortSignal): Promise<SequenceLease> {
        const sequence = await this.pool.acquire(prompt.tokens, signal);
        const detokenize = (tokens: readonly Token[], lastTokens: readonly Token[]) => this.model.detokenize(tokens, false, lastTokens);
        let released = false;
        return {
            generate: (leasedPrompt: PreparedPrompt, options: GenerationOptions, generationSignal: AbortSignal) =>
                generateOnSequence(sequence, detokenize, leasedPrompt, options, generationSignal),
            release: () => {
                if (!released) {
                    released = true;
                    this.pool.release(sequence);
                }
            }
        };
    }

    public async dispose(): Promise<void> {
        this.pool.rejectWaiters(new ServiceShuttingDownError());
        // Generations still running hold sequences of this context: let them end first.
        await this.pool.whenIdle();
        await this.context.dispose();
        await this.model.dispose();
    }
}
