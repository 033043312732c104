import {type LlamaGrammarEvaluationState, type Token, type TokenBias} from "node-llama-cpp";
import type {ToolCallSyntax} from "../preparedPrompt.js";
import type {ReplyFormat, ToolDefinition} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import type {ReplyGrammars} from "./grammars.js";
import {CallOpening} from "./callOpening.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";
import {TextReply} from "./textReply.js";
import {ToolCallSequence} from "./toolCallSequence.js";

type ToolCallsFormat = Extract<ReplyFormat, {type: "toolCalls"}>;
/** Before the first call (what the reply opens with); "calls" once one is open (toolCallSequence.ts). */
type Phase = "recipient" | "lead" | "text" | "calls";

/** A reply never holds more calls than this, so a model that keeps calling still ends. */
const maxCallsPerReply = 16;

/**
 * A reply of tool calls in the template's own syntax. Free text comes first only with
 * `tool_choice: "auto"` (or "none", which stops there), until the model writes the opening of a call
 * (a plain-text opening only at the start of the reply). From there every call is
 * constrained (reply/toolCallSequence.ts).
 */
export class ToolCallReply implements ReplyShaper {
    public readonly opening: {tokens: Token[], events: GenerationEvent[]} = {tokens: [], events: []};
    public readonly callOpening: CallOpening;
    private readonly text: TextReply;
    private readonly calls: ToolCallSequence;
    private phase: Phase;
    /** What the reply's start holds back while it could still open a call (`lead`, `recipient`). */
    private written = "";

    public constructor(
        private readonly grammars: ReplyGrammars,
        private readonly syntax: ToolCallSyntax,
        private readonly format: ToolCallsFormat,
        private readonly stops: readonly string[]
    ) {
        const opening = this.callOpening = new CallOpening(grammars, syntax, format.tools);
        // A call opened by a token of its own (Qwen's <tool_call>) may follow text; one opened by
        // plain text (Llama 3's {"name":) only starts a reply, as llama.cpp reads it: further on it
        // is just JSON in an answer.
        this.text = new TextReply(stops, opening.triggerIsToken || syntax.opensReply === true ? opening.trigger : null);
        const {choice} = format;
        // conversation/replyPlan.ts has refused a named choice that is not one of the tools.
        const named = typeof choice === "object" ? format.tools.find((tool) => tool.name === choice.name)! : null;
        const maxCalls = named != null || !format.parallel || syntax.betweenCalls == null ? 1 : maxCallsPerReply;
        this.calls = new ToolCallSequence(grammars, syntax, opening, format.tools, maxCalls);

        if (format.choice === "auto" && syntax.opensReply === true)
            this.phase = "recipient";
        else if (format.choice === "auto" && !opening.triggerIsToken)
            this.phase = "lead";
        else if (format.choice === "auto" || format.choice === "none")
            this.phase = "text";
        else {
            this.opening.tokens = grammars.tokenize(opening.forcedOpening(named?.name));
            this.phase = "calls";
            if (named == null)
                this.calls.startName();
            else
                this.opening.events = [this.calls.startArguments(named)];
        }
    }

    public get stopSequence(): string | null {
        return this.text.stopSequence;
    }

    public get callTrigger(): string | null {
        return this.format.choice === "auto" && this.callOpening.triggerIsToken ? this.callOpening.trigger : null;
    }

    /** The tools a call may name. */
    public get tools(): readonly ToolDefinition[] {
        return this.format.tools;
    }

    /** Whether the reply may call a tool at all (not with tool_choice "none"). */
    public get mayCall(): boolean {
        return this.format.choice !== "none";
    }

    public get shownTokens(): ReadonlyMap<Token, string> {
        return this.callOpening.shownTokens;
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.phase === "calls" ? this.calls.state : undefined;
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        // "none": a template whose call opens with one special token cannot open a call at all.
        if (this.format.choice === "none")
            return this.grammars.banning(this.callOpening.trigger);
        return this.phase === "calls" ? this.calls.tokenBias(remainingTokens) : undefined;
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        switch (this.phase) {
            case "recipient":
                return this.pushRecipient(text, remainingTokens);
            case "lead":
                return this.pushLead(text);
            case "text": {
                const step = this.text.push(text);
                // With tool_choice "none" the opening of a call ends the text reply instead.
                if (!this.text.triggered || this.format.choice === "none")
                    return step;
                return {...this.openCall(), events: step.events};
            }
            case "calls":
                return this.calls.push(text, remainingTokens);
        }
    }

    /** The model has written the trigger: the rest of the call's opening is forced, and its name comes next. */
    public openCall(): ShaperStep {
        this.phase = "calls";
        this.calls.startName();
        return {events: [], forced: this.callOpening.afterTrigger};
    }

    /** The model has written a call's whole opening (`CallOpening.named`): its arguments come next. */
    public openNamedCall(tool: ToolDefinition): ShaperStep {
        this.phase = "calls";
        return {events: [this.calls.startArguments(tool)]};
    }

    public end(rest: string): ShaperStep {
        if (this.phase === "recipient" || this.phase === "lead" || this.phase === "text")
            return this.text.end(this.takeLead() + rest);
        return {events: this.calls.cut(rest), finish: "toolCalls"};
    }

    public cut(rest: string): GenerationEvent[] {
        if (this.phase === "recipient" || this.phase === "lead" || this.phase === "text")
            return this.text.cut(this.takeLead() + rest);
        return this.calls.cut(rest);
    }

    /**
     * The reply's first characters, held while they could still be a plain-text call opening (and
     * contain no stop sequence: a reply of "\n\n\n" with that stop ends there, not at max_tokens).
     */
    private pushLead(text: string): ShaperStep {
        this.written += text;
        const lead = this.written.trimStart();
        const {trigger} = this.callOpening;
        if (lead.startsWith(trigger))
            return this.openCall();
        if (trigger.startsWith(lead) && !this.stops.some((stop) => this.written.includes(stop)))
            return {events: []};
        this.phase = "text";
        return this.text.push(this.takeLead());
    }

    /**
     * Where the prompt opened the reply with a call's prefix (Functionary's `>>>`), the reply's first
     * line names its recipient: a tool (its arguments follow) or `all`, the user (text follows).
     */
    private pushRecipient(text: string, remainingTokens: number): ShaperStep {
        this.written += text;
        const lineEnd = this.written.indexOf(this.syntax.paramsPrefix);
        const head = lineEnd < 0 ? this.written : this.written.slice(0, lineEnd);
        const tool = this.format.tools.find((candidate) => candidate.name === head);
        if (lineEnd < 0 && ["all", ...this.format.tools.map((candidate) => candidate.name)].some((name) => name.startsWith(head)))
            return {events: []};
        const whole = this.written;
        const rest = lineEnd < 0 ? "" : whole.slice(lineEnd + this.syntax.paramsPrefix.length);
        this.written = "";
        if (tool == null) {
            this.phase = "text";
            // `all` and its line are the recipient's, not the answer's; anything else is text as written.
            return this.text.push(head === "all" && lineEnd >= 0 ? rest : whole);
        }
        const opened = this.openNamedCall(tool);
        if (rest === "")
            return opened;
        const step = this.calls.push(rest, remainingTokens);
        return {...step, events: [...opened.events, ...step.events]};
    }

    /** What `pushLead` holds (nothing once the text has moved on). */
    private takeLead(): string {
        const lead = this.written;
        this.written = "";
        return lead;
    }
}
