import type {LlamaContext, LlamaContextSequence, LlamaModel, Token} from "node-llama-cpp";
import {DecodeSteps} from "../decodeSteps.js";
import {sequenceState} from "../llamaInternals.js";
import type {LlamaRuntime} from "../llamaRuntime.js";
import type {StepSampler} from "../stepSampler.js";
import {draftVocabularyRefusal, vocabularyFacts} from "./draftCompatibility.js";
import type {DraftContinuation, DraftModelLink} from "./modelDrafts.js";

/** What a target's draft is loaded with: its file, and its fixed draft length if chatserve.json gives one. */
export type DraftModelOptions = {path: string, tokens?: number};

/**
 * A draft model loaded beside its target: its weights and one context with a sequence for each of
 * the target's, of the target's context size (a draft sequence mirrors its target's tokens, prompt
 * and all), with a decode loop of its own so that concurrent replies' draft steps share batches.
 * Loaded and disposed with its target (llamaModelParts.ts, llamaLoadedModel.ts).
 */
export class DraftModel implements DraftModelLink {
    private readonly pairs: Map<LlamaContextSequence, DraftSequence>;

    private constructor(
        private readonly model: LlamaModel, private readonly context: LlamaContext, targets: readonly LlamaContextSequence[],
        sequences: readonly LlamaContextSequence[], steps: DecodeSteps, public readonly stepCost: number, public readonly tokens: number | undefined
    ) {
        this.pairs = new Map(targets.map((target, index) => {
            const sequence = sequences[index]!;
            // Greedy: the draft's best guess; whatever it guesses, the target samples for itself.
            return [target, new DraftSequence(sequence, steps, steps.sampler(sequence, {temperature: 0}, false))];
        }));
    }

    /**
     * Loads `options.path` as `target`'s draft, or says why not: a tokenizer that does not spell the
     * target's tokens alike (draftCompatibility.ts), or a recurrent model (a rejected draft cannot be
     * taken back out of its state). Only llama.cpp's own failures throw.
     */
    public static async load(
        runtime: LlamaRuntime, target: LlamaModel, targetContext: LlamaContext, targets: readonly LlamaContextSequence[], options: DraftModelOptions
    ): Promise<{draft: DraftModel} | {refusal: string}> {
        const model = await runtime.llama.loadModel({modelPath: options.path});
        try {
            const refusal = draftVocabularyRefusal(vocabularyFacts(target), vocabularyFacts(model));
            if (refusal != null) {
                await model.dispose();
                return {refusal};
            }
            const context = await model.createContext({
                contextSize: targetContext.contextSize, sequences: targets.length, threads: runtime.threads, flashAttention: runtime.flashAttention
            });
            const sequences = targets.map(() => context.getSequence());
            if (sequences[0]?.needsCheckpoints === true) {
                await context.dispose();
                await model.dispose();
                return {refusal: "its state is recurrent: a rejected draft could not be taken back out of it"};
            }
            // A step reads all the weights once: on a CPU, where decoding is bound by memory, the sizes' ratio is the steps' time ratio.
            const stepCost = model.size / Math.max(1, target.size);
            const steps = new DecodeSteps(context, runtime.threads, runtime.decodeThreads, runtime.flashAttention === "auto");
            return {draft: new DraftModel(model, context, targets, sequences, steps, stepCost, options.tokens)};
        } catch (error) {
            await model.dispose();
            throw error;
        }
    }

    public sequenceFor(target: LlamaContextSequence): DraftContinuation | undefined {
        return this.pairs.get(target);
    }

    /** llama.cpp's account of the draft's weights and context. */
    public get memory(): {ram: number, vram: number} {
        const parts = [this.model.memoryUsage, this.context.memoryUsage];
        return parts.reduce((sum, part) => ({ram: sum.ram + part.ram, vram: sum.vram + part.vram}), {ram: 0, vram: 0});
    }

    /** After the target's generations have ended (they hold its sequences), and then the drafts' work they left running (a prompt being read). */
    public async dispose(): Promise<void> {
        await Promise.all([...this.pairs.values()].map((pair) => pair.idle()));
        for (const pair of this.pairs.values())
            pair.dispose();
        await this.context.dispose();
        await this.model.dispose();
    }
}

/**
 * One draft sequence. Before each draft it is brought to the target's history: what it holds
 * beyond the part they share (its last draft's rejected tokens, another request's reply) is
 * erased, and what it lacks (the prompt at first, then the tokens kept since) is fed in the same
 * step that yields the first drafted token. It keeps its tokens between requests, as the target's
 * sequence does, so a follow-up turn's prompt is mostly there already.
 */
class DraftSequence implements DraftContinuation {
    /** The work under way on this sequence: one reply's warming and drafting, then the next reply's, never two at once. */
    private busy: Promise<unknown> = Promise.resolve();

    public constructor(private readonly sequence: LlamaContextSequence, private readonly steps: DecodeSteps, private readonly sampler: StepSampler) {}

    public warm(history: readonly Token[]): Promise<void> {
        return this.inTurn(async () => {
            const feed = await this.alignWith(history);
            // The last token is left for the first draft, which samples from its output.
            if (feed.length > 1)
                await this.steps.step(this.sequence, feed.slice(0, -1), this.sampler);
        });
    }

    public continue(history: readonly Token[], count: number): Promise<Token[]> {
        return this.inTurn(async () => {
            if (history.length === 0 || count <= 0)
                return [];
            const drafted: Token[] = [];
            let feed = await this.alignWith(history);
            while (drafted.length < count) {
                const token = await this.steps.step(this.sequence, feed, this.sampler);
                drafted.push(token);
                feed = [token];
            }
            return drafted;
        });
    }

    /** Erases what the sequence holds beyond the part it shares with `history`; returns the rest of `history` (at least its last token). */
    private async alignWith(history: readonly Token[]): Promise<readonly Token[]> {
        const held = sequenceState(this.sequence)._contextTokens;
        const limit = Math.min(held.length, history.length - 1);
        let shared = 0;
        while (shared < limit && held[shared] === history[shared])
            shared++;
        if (held.length > shared)
            await this.sequence.eraseContextTokenRanges([{start: shared, end: this.sequence.nextTokenIndex}]);
        return history.slice(shared);
    }

    /** Once the work under way has ended. */
    public idle(): Promise<unknown> {
        return this.busy;
    }

    private inTurn<T>(work: () => Promise<T>): Promise<T> {
        const result = this.busy.then(work);
        this.busy = result.catch(() => undefined);
        return result;
    }

    public dispose(): void {
        this.sampler.dispose();
    }
}
