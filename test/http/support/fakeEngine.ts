// An engine double for HTTP tests: a real ModelRegistry over a static catalogue and a loader
// that hands out a scripted LoadedModel. No GGUF, no node-llama-cpp.
import type {ChatHistoryItem, Token} from "node-llama-cpp";
import type {EmbeddingResult, LoadedModel, ModelActivity, RerankResult, SequenceLease, TokenizeRequest, TokenPiece} from "../../../src/engine/loadedModel.js";
import type {PreparedPrompt} from "../../../src/engine/preparedPrompt.js";
import type {GenerationOptions, ToolDefinition} from "../../../src/engine/generationOptions.js";
import type {GenerationEvent, GenerationResult} from "../../../src/engine/generationEvents.js";
import {BadRequestError, ServerBusyError, type ApiError} from "../../../src/errors.js";
import {GrammarParseError} from "../../../src/engine/grammarDiagnosis.js";
import type {ContextPlan} from "../../../src/models/contextPlan.js";
import type {Catalogue} from "../../../src/models/modelCatalogue.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";

export const CONTEXT_LENGTH = 64;

/** What the next generations do. Every piece counts as one completion token. */
export type Script = {
    /** Text pieces, or any engine event (tool calls). */
    pieces: Array<string | GenerationEvent>,
    /** How a generation that runs through its pieces ends (default "stop"). */
    finish?: "stop" | "toolCalls",
    /** Yield a prompt-progress event before the text. */
    progress?: boolean,
    /** Thrown after the pieces are yielded (a failure mid-generation). */
    failWith?: Error,
    /** After the pieces, wait until the request's signal aborts instead of finishing. */
    hangUntilAborted?: boolean,
    /** After the pieces, wait for this without looking at the signal (a long prompt batch), then end aborted if it was. */
    busyUntil?: Promise<void>,
    /** A client stop sequence that ended the reply (the result names it). */
    stopSequence?: string,
    /** acquireSequence answers 503 as a full queue would. */
    busy?: boolean
};

export const defaultScript: Script = {pieces: ["Hello", " there", "!"]};

/** One token per whitespace-separated word of the rendered conversation. */
export function renderForTest(history: readonly ChatHistoryItem[]): string {
    return history.map((item) => {
        if (item.type === "model")
            return item.response.filter((part) => typeof part === "string").join(" ");
        return typeof item.text === "string" ? item.text : JSON.stringify(item.text);
    }).join(" ");
}

/** One token per whitespace-separated word. */
function wordTokens(text: string): PreparedPrompt {
    const words = text.split(/\s+/).filter((word) => word !== "");
    return {tokens: words.map((_word, index) => index as Token), stopTokens: [], stopStrings: []};
}

export class FakeModel implements LoadedModel {
    public readonly contextLength = CONTEXT_LENGTH;
    public supportsInfill = false;
    public readonly embeddingDimensions = 4;
    public supportsTools = true;
    public imageInputRefusal: string | null = "no vision projector (mmproj) is paired with it";
    public script: Script = defaultScript;
    /** The tools the last prompt was rendered with, and whether it let a reasoning model think. */
    public renderedTools: readonly ToolDefinition[] = [];
    public renderedThinking = true;
    /** The last chat prompt's text, as renderForTest wrote it. */
    public renderedText = "";
    public readonly generations: Array<{options: GenerationOptions, signal: AbortSignal}> = [];
    /** Each lease's cache partition, and each chat prompt's (its images' cache), in order. */
    public readonly leasePartitions: Array<string | undefined> = [];
    /** Its LoRA adapters (chatserve.json's `lora`), and each lease's scales (undefined: the adapters' own). */
    public loraAdapters: Array<{path: string, scale: number}> = [];
    public readonly leaseLoraScales: Array<readonly number[] | undefined> = [];
    public readonly promptPartitions: Array<string | undefined> = [];
    public activeLeases = 0;
    public disposed = false;
    /** Set when dispose ran while a sequence was leased: a reply cut mid-way (the registry must never do it). */
    public disposedWhileBusy = false;
    /** What llama.cpp would report it allocated once loaded; unset: the registry keeps its estimate. */
    public memory?: {ram: number, vram: number};
    /** Called when it is disposed (FakeLoader records unloads with it). */
    public onDispose: () => void = () => {};
    private releaseListeners: Array<() => void> = [];

    public async prepareChat(
        history: ChatHistoryItem[], {tools = [], thinking = true, cachePartition}: {tools?: readonly ToolDefinition[], thinking?: boolean, cachePartition?: string} = {}
    ): Promise<PreparedPrompt> {
        this.promptPartitions.push(cachePartition);
        this.renderedTools = tools;
        this.renderedThinking = thinking;
        this.renderedText = renderForTest(history);
        return wordTokens(this.renderedText);
    }

    public compileSchema(): void {
        if (this.stoppedQueueing != null)
            throw this.stoppedQueueing;
    }

    /** The GBNF texts requests asked to compile, in order; with `grammarRefusal` set, each is refused with that reason. */
    public readonly compiledGrammars: string[] = [];
    public grammarRefusal: string | null = null;

    public async compileGrammar(grammar: string): Promise<void> {
        this.compiledGrammars.push(grammar);
        if (this.grammarRefusal != null)
            throw new GrammarParseError(this.grammarRefusal);
    }

    public async prepareText(prompt: string): Promise<PreparedPrompt> {
        return wordTokens(prompt);
    }

    public async prepareTokens(tokens: readonly number[]): Promise<PreparedPrompt & {text: string}> {
        return {tokens: [...tokens] as Token[], stopTokens: [], stopStrings: [], text: tokens.map((token) => `<${token}>`).join("")};
    }

    public async prepareInfill(prefix: string, suffix: string, _completion: {tokens: number, param: string}): Promise<PreparedPrompt> {
        return wordTokens(`${prefix} ${suffix}`);
    }

    public async embed(inputs: ReadonlyArray<string | readonly number[]>, _signal: AbortSignal): Promise<EmbeddingResult> {
        const lengths = inputs.map((input) => typeof input === "string" ? wordTokens(input).tokens.length : input.length);
        return {
            vectors: lengths.map((length) => [length, 0, 0, 0]),
            promptTokens: lengths.reduce((sum, length) => sum + length, 0)
        };
    }

    /** A document's score: the share of its words that are in the query (so tests can tell the order). */
    public async rerank(query: string, documents: readonly string[], _signal: AbortSignal): Promise<RerankResult> {
        const queryWords = new Set(query.toLowerCase().split(/\s+/));
        const scores = documents.map((document) => {
            const words = document.toLowerCase().split(/\s+/).filter((word) => word !== "");
            return words.length === 0 ? 0 : words.filter((word) => queryWords.has(word)).length / words.length;
        });
        const promptTokens = documents.reduce((sum, document) => sum + wordTokens(`${query} ${document}`).tokens.length, 0);
        return {scores, promptTokens};
    }

    /** /tokenize's vocabulary: one token per character code below 256; `addSpecial` frames a leading text in 1 … 2. */
    private readonly tokenizerVocabulary = 256;

    public async tokenize(content: ReadonlyArray<string | number>, {addSpecial, param}: TokenizeRequest): Promise<number[]> {
        return content.flatMap((part, index) => {
            if (typeof part === "number") {
                this.checkVocabulary([part], `${param}[${index}]`);
                return [part];
            }
            const codes = [...part].map((character) => character.codePointAt(0)! % this.tokenizerVocabulary);
            return addSpecial && index === 0 ? [1, ...codes, 2] : codes;
        });
    }

    public tokenPieces(tokens: readonly number[], param: string): TokenPiece[] {
        this.checkVocabulary(tokens, param);
        // Codes from 128 stand for half a character, as byte-fallback tokens do.
        return tokens.map((token) => token < 128 ? String.fromCharCode(token) : [token]);
    }

    public detokenize(tokens: readonly number[], param: string): string {
        this.checkVocabulary(tokens, param);
        return String.fromCharCode(...tokens);
    }

    /** The prompt's text: the words the double rendered it from (its tokens are their positions). */
    public promptText(prompt: PreparedPrompt): string {
        return `${this.renderedText} (${prompt.tokens.length} tokens)`;
    }

    private checkVocabulary(tokens: readonly number[], param: string): void {
        const foreign = tokens.find((token) => token >= this.tokenizerVocabulary);
        if (foreign != null)
            throw new BadRequestError(`Invalid '${param}': token id ${foreign} is not in this model's vocabulary.`, {param, code: "invalid_value"});
    }

    public async acquireSequence(_prompt: PreparedPrompt, _signal: AbortSignal, cachePartition?: string, loraScales?: readonly number[]): Promise<SequenceLease> {
        if (this.script.busy)
            throw new ServerBusyError(1);
        this.leasePartitions.push(cachePartition);
        this.leaseLoraScales.push(loraScales);
        this.activeLeases++;
        let released = false;
        return {
            generate: (prompt, options, signal) => this.generate(prompt, options, signal),
            release: () => {
                if (released)
                    return;
                released = true;
                this.activeLeases--;
                this.releaseListeners.splice(0).forEach((listener) => listener());
            }
        };
    }

    /** Leases held count as running; the double has no queue of its own, and no KV cells but its leases' (a quarter each), nor a measured draft cost. */
    public activity(): ModelActivity {
        return {running: this.activeLeases, waiting: 0, kvCacheUsage: this.activeLeases / 4, draftTokenCost: 0.15, draftPassCost: 0.05};
    }

    /** Resolves at the next lease release. */
    public nextRelease(): Promise<void> {
        return new Promise((resolve) => this.releaseListeners.push(resolve));
    }

    public stoppedQueueing: ApiError | null = null;

    public stopQueueing(reason: ApiError): void {
        this.stoppedQueueing ??= reason;
    }

    public async dispose(): Promise<void> {
        if (this.activeLeases > 0)
            this.disposedWhileBusy = true;
        this.disposed = true;
        this.onDispose();
    }

    private async* generate(prompt: PreparedPrompt, options: GenerationOptions, signal: AbortSignal): AsyncGenerator<GenerationEvent, GenerationResult> {
        const script = this.script;
        this.generations.push({options, signal});
        // The first piece stands for the first sampled token (metrics' time to first token).
        let firstTokenAt: number | undefined;
        const result = (finishReason: GenerationResult["finishReason"], completionTokens: number): GenerationResult =>
            ({finishReason, promptTokens: prompt.tokens.length, cachedTokens: 0, completionTokens, timing: {firstTokenAt, endedAt: performance.now()}});

        if (script.progress)
            yield {type: "progress", evaluatedTokens: 1, totalTokens: prompt.tokens.length};
        let count = 0;
        for (const piece of script.pieces) {
            if (signal.aborted)
                return result("abort", count);
            if (count >= options.maxTokens)
                return result("length", count);
            count++;
            firstTokenAt ??= performance.now();
            yield typeof piece === "string" ? {type: "text", text: piece} : piece;
        }
        if (script.failWith != null)
            throw script.failWith;
        if (script.busyUntil != null) {
            await script.busyUntil;
            return result(signal.aborted ? "abort" : script.finish ?? "stop", count);
        }
        if (script.hangUntilAborted) {
            if (!signal.aborted)
                await new Promise((resolve) => signal.addEventListener("abort", resolve, {once: true}));
            return result("abort", count);
        }
        return {...result(script.finish ?? "stop", count), ...(script.stopSequence != null ? {stopSequence: script.stopSequence} : {})};
    }
}

export function descriptor(id: string, extra: Partial<ModelDescriptor> = {}): ModelDescriptor {
    return {
        id,
        path: `/models/${id}.gguf`,
        files: [`/models/${id}.gguf`],
        sizeBytes: 1234,
        modifiedAt: 1_700_000_000,
        architecture: "llama",
        trainedContextLength: 2048,
        capabilities: ["chat", "completion"],
        ...extra
    };
}

export const BROKEN_REASON = "not a readable GGUF file (bad magic)";

/** The models the test catalogue holds. */
export function testDescriptors(): ModelDescriptor[] {
    return [
        descriptor("tiny-chat", {capabilities: ["chat", "completion", "tools"]}),
        descriptor("sub/nested"),
        descriptor("broken", {architecture: null, trainedContextLength: null, capabilities: [], error: BROKEN_REASON}),
        descriptor("embedder", {architecture: "bert", capabilities: ["embeddings"]})
    ];
}

export class StaticCatalogue implements Catalogue {
    public refreshes = 0;
    /** What the next rescans fail with, if anything (the folder out of file handles). */
    public refreshFailure: Error | null = null;
    public constructor(private readonly descriptors: ModelDescriptor[]) {}

    public list(): ModelDescriptor[] {
        return [...this.descriptors];
    }

    public find(id: string): ModelDescriptor | undefined {
        return this.descriptors.find((entry) => entry.id === id);
    }

    public async refresh(): Promise<void> {
        this.refreshes++;
        if (this.refreshFailure != null)
            throw this.refreshFailure;
    }
}

/**
 * A loader that makes a FakeModel of its own for each load and records every load and unload in
 * order ("load a", "unload a"), so that tests can give models sizes (`descriptor(id, {sizeBytes})`)
 * and watch what the registry keeps in memory. With `hold()`, loads wait until `finishLoads()`.
 */
export class FakeLoader {
    public readonly events: string[] = [];
    /** Every model made, with the id it was loaded for, in order. */
    public readonly made: Array<{id: string, plan: ContextPlan, model: FakeModel}> = [];
    /** Sets each model before it is handed out (a script, a measured `memory`). */
    public prepare: (model: FakeModel, id: string) => void = () => {};
    private gate: Promise<void> | null = null;
    private openGate = () => {};

    public readonly load = async (descriptor: ModelDescriptor, plan: ContextPlan): Promise<LoadedModel> => {
        const model = new FakeModel();
        this.prepare(model, descriptor.id);
        this.events.push(`load ${descriptor.id}`);
        model.onDispose = () => this.events.push(`unload ${descriptor.id}`);
        this.made.push({id: descriptor.id, plan, model});
        await this.gate;
        return model;
    };

    /** The model the last load of `id` made. */
    public model(id: string): FakeModel {
        const entry = this.made.findLast((made) => made.id === id);
        if (entry == null)
            throw new Error(`${id} was never loaded`);
        return entry.model;
    }

    /** Ids whose last model is loaded and not disposed. */
    public loaded(): string[] {
        return [...new Set(this.made.map((made) => made.id))].filter((id) => !this.model(id).disposed);
    }

    /** Loads from now on wait until `finishLoads()`. */
    public hold(): void {
        this.gate = new Promise((resolve) => this.openGate = resolve);
    }

    public finishLoads(): void {
        this.openGate();
        this.gate = null;
    }
}
