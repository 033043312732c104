import type {LlamaGrammarEvaluationState, TokenBias} from "node-llama-cpp";
import type {ToolCallSyntax} from "../preparedPrompt.js";
import type {ToolDefinition} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import type {ReplyGrammars} from "./grammars.js";
import {numberedParamsPrefix, type CallOpening} from "./callOpening.js";
import {ConstrainedJson} from "./constrainedJson.js";
import type {ShaperStep} from "./replyShaper.js";

type CallPhase = "name" | "arguments" | "next";

/**
 * A reply's tool calls once the first is open, in the template's own syntax (reply/toolCallReply.ts
 * decides when that is): each call's name one of the tools, its arguments that tool's JSON schema,
 * and between calls only another call's opening or the end. Template markup is forced, not
 * sampled. Where the template numbers its calls (Kimi K2's `functions.NAME:0`), each call gets
 * its own number, counted up from the reply's first.
 */
export class ToolCallSequence {
    private phase: CallPhase = "name";
    public state: LlamaGrammarEvaluationState | undefined;
    private written = "";
    private calls = 0;
    /** The arguments being generated. */
    private current: ConstrainedJson | null = null;

    public constructor(
        private readonly grammars: ReplyGrammars,
        private readonly syntax: ToolCallSyntax,
        private readonly callOpening: CallOpening,
        private readonly tools: readonly ToolDefinition[],
        private readonly maxCalls: number
    ) {}

    /** What comes between the current call's name and its arguments: the template's params prefix, with the call's number where it has one. */
    public get paramsPrefix(): string {
        return numberedParamsPrefix(this.syntax, this.calls);
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.phase === "arguments" ? this.current?.tokenBias(remainingTokens) : undefined;
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        switch (this.phase) {
            case "name":
                return this.pushName(text);
            case "arguments":
                return this.pushArguments(text, remainingTokens);
            case "next":
                return this.pushNext(text);
        }
    }

    /** The model stopped: what the arguments under way still take of `rest`. */
    public cut(rest: string): GenerationEvent[] {
        return this.phase === "arguments" ? this.pushArguments(rest).events : [];
    }

    /** A call's name comes next, under a grammar that allows only the tools' names followed by the params prefix. */
    public startName(): void {
        this.phase = "name";
        this.written = "";
        this.state = this.grammars.literal(this.tools.map((tool) => tool.name), this.paramsPrefix);
    }

    /** The call to `tool` is open up to its arguments, which come next. */
    public startArguments(tool: ToolDefinition): GenerationEvent {
        this.phase = "arguments";
        this.current = new ConstrainedJson(this.grammars, tool.parameters);
        this.state = this.current.grammar;
        // A numbered call's id is its own name for itself (`functions.get_weather:0`), which its template reads back in the tool's result.
        const {callIndex} = this.syntax;
        const id = callIndex == null ? {} : {id: callIndex.idHead + tool.name + this.paramsPrefix.slice(0, callIndex.at) + String(callIndex.first + this.calls)};
        return {type: "toolCall", index: this.calls, name: tool.name, ...id};
    }

    /**
     * Once one tool alone fits what the model wrote, the rest of its name and the params prefix are
     * forced rather than sampled token by token (each a decode step, and a budget a small
     * max_tokens could spend before the call had a name).
     */
    private pushName(text: string): ShaperStep {
        this.written += text;
        const opening = (tool: ToolDefinition) => tool.name + this.paramsPrefix;
        const candidates = this.tools.filter((tool) => opening(tool).startsWith(this.written));
        if (candidates.length !== 1)
            return {events: []};
        const [tool] = candidates as [ToolDefinition];
        const rest = opening(tool).slice(this.written.length);
        return {events: [this.startArguments(tool)], ...(rest === "" ? {} : {forced: this.grammars.tokenize(rest)})};
    }

    private pushArguments(text: string, remainingTokens = 0): ShaperStep {
        const call = this.current;
        if (call == null)
            return {events: []};
        const index = this.calls;
        const argumentsText = call.take(text);
        const events: GenerationEvent[] = argumentsText === "" ? [] : [{type: "toolArguments", index, text: argumentsText}];
        if (!call.isComplete)
            return {events};

        this.calls++;
        this.current = null;
        // A model that keeps calling would have its last call cut off by max_tokens: end with whole calls instead.
        if (this.calls >= this.maxCalls || remainingTokens < this.callOpening.nextCallCost)
            return {events, finish: "toolCalls"};
        // Close this call, then let the model choose between opening another one and ending.
        this.phase = "next";
        this.written = "";
        const {nextCall, sectionEnd} = this.callOpening;
        this.state = this.grammars.literal(sectionEnd === "" ? [nextCall] : [nextCall, sectionEnd], "", {optional: true});
        return {events, forced: this.grammars.tokenize(this.syntax.suffix)};
    }

    /**
     * After a call, the grammar allows ending, the text that closes the template's call section
     * (Mistral's `]`), or the whole opening of another call: once the model has begun the opening,
     * the rest of it is forced.
     */
    private pushNext(text: string): ShaperStep {
        this.written += text;
        const {nextCall, sectionEnd, afterNextCall} = this.callOpening;
        if (sectionEnd !== "" && sectionEnd.startsWith(this.written))
            return this.written === sectionEnd ? {events: [], finish: "toolCalls"} : {events: []};
        const rest = nextCall.slice(this.written.length);
        this.startName();
        return {events: [], forced: [...(rest === "" ? [] : this.grammars.tokenize(rest)), ...afterNextCall]};
    }
}
