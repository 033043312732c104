import type {LlamaGrammarEvaluationState} from "node-llama-cpp";
import type {ArgumentCallSyntax} from "../preparedPrompt.js";
import type {ToolDefinition} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import {nextCallCost, ToolArguments, type KeyChoice} from "./argumentMarkup.js";
import {ArgumentValue} from "./argumentValue.js";
import type {ReplyGrammars} from "./grammars.js";
import type {ShaperStep} from "./replyShaper.js";

type Phase = "name" | "key" | "value" | "next" | "done";

/**
 * A reply's calls in a per-argument syntax once the first is open (reply/argumentCallReply.ts
 * decides when that is): the call's name is one of the tools, each argument's key one of the
 * tool's properties (required ones before the call may close), and each value its property's
 * (reply/argumentValue.ts). Markup is forced once the model has chosen; the client gets each call's
 * arguments as one JSON object, streamed.
 */
export class ArgumentCallSequence {
    public state: LlamaGrammarEvaluationState | undefined;
    private phase: Phase = "name";
    private written = "";
    private calls = 0;
    private arguments: ToolArguments | null = null;
    private keys: string[] = [];
    private choices: KeyChoice[] = [];
    private value: ArgumentValue | null = null;
    /** Completion tokens left after the last token pushed. */
    private remaining = Infinity;
    /** The syntax's own string quote (Gemma 4's `<|"|>`), in whose notation other values are written; "" where values are JSON. */
    private readonly quote: string;

    public constructor(
        private readonly grammars: ReplyGrammars, private readonly syntax: ArgumentCallSyntax, private readonly tools: readonly ToolDefinition[],
        private readonly maxCalls: number
    ) {
        this.quote = syntax.stringOpen !== "" && syntax.stringOpen === syntax.stringClose ? syntax.stringOpen : "";
    }

    /** Whether the model stopped inside a call's arguments, which `cut` then closes. */
    public get inArguments(): boolean {
        return this.phase === "key" || this.phase === "value";
    }

    public push(text: string, remainingTokens = this.remaining): ShaperStep {
        this.remaining = remainingTokens;
        switch (this.phase) {
            case "name":
                return this.pushName(text);
            case "key":
                return this.pushKey(text);
            case "value":
                return this.pushValue(text);
            case "next":
                return this.pushNext(text);
            case "done":
                return {events: [], finish: "toolCalls"};
        }
    }

    /** The model stopped inside a call: the call is handed on with what it has, its JSON closed, never dropped. */
    public cut(rest: string): GenerationEvent[] {
        const step = rest === "" ? {events: []} : this.push(rest);
        if (!this.inArguments)
            return step.events;
        const closing = (this.value?.close() ?? "") + (this.keys.length === 0 ? "{}" : "}");
        this.phase = "done";
        return [...step.events, ...this.argumentEvents(closing)];
    }

    public startName(): void {
        this.phase = "name";
        this.written = "";
        this.state = this.grammars.literal(this.tools.map((tool) => tool.name), this.syntax.nameSuffix);
    }

    public startCall(tool: ToolDefinition): GenerationEvent {
        this.arguments = new ToolArguments(this.syntax, tool);
        this.keys = [];
        this.startKey();
        return {type: "toolCall", index: this.calls, name: tool.name};
    }

    /** Hands on what a token wrote past the markup it completed. */
    public then(step: ShaperStep, after: string): ShaperStep {
        if (after === "" || step.forced != null || step.finish != null)
            return step;
        const next = this.push(after, this.remaining);
        // That text was written under another grammar: where it leaves the choice open, the next
        // token's grammar starts after it.
        if (next.forced == null && next.finish == null && (this.phase === "name" || this.phase === "key") && this.written !== "") {
            const open = this.phase === "name" ? this.tools.map((tool) => tool.name + this.syntax.nameSuffix) : this.choices.map((choice) => choice.text);
            this.state = this.grammars.literal(open.filter((text) => text.startsWith(this.written)).map((text) => text.slice(this.written.length)), "");
        }
        return {...next, events: [...step.events, ...next.events]};
    }

    private pushName(text: string): ShaperStep {
        this.written += text;
        const candidates = this.tools.filter((tool) => (tool.name + this.syntax.nameSuffix).startsWith(this.written) ||
            this.written.startsWith(tool.name + this.syntax.nameSuffix));
        if (candidates.length !== 1)
            return {events: []};
        const tool = candidates[0]!;
        const full = tool.name + this.syntax.nameSuffix;
        const rest = full.slice(Math.min(this.written.length, full.length));
        const after = this.written.slice(full.length);
        const event = this.startCall(tool);
        return after === "" ? this.withKeyLead([event], rest) : this.then({events: [event], ...(rest === "" ? {} : {forced: this.grammars.tokenize(rest)})}, after);
    }

    /** A key's markup, or the call's end: once one choice alone fits, the rest of it is forced. */
    private pushKey(text: string): ShaperStep {
        this.written += text;
        const fits = this.choices.filter((choice) => choice.text.startsWith(this.written) || this.written.startsWith(choice.text));
        if (fits.length !== 1)
            return {events: []};
        const choice = fits[0]!;
        const rest = choice.text.slice(Math.min(this.written.length, choice.text.length));
        const after = this.written.slice(choice.text.length);
        const forced = rest === "" ? {} : {forced: this.grammars.tokenize(rest)};
        if (choice.key == null)
            return {...this.endCall(this.keys.length === 0 ? "{}" : "}"), ...forced};
        const opening = `${this.keys.length === 0 ? "{" : ", "}${JSON.stringify(choice.key)}: `;
        this.keys.push(choice.key);
        const args = this.arguments!;
        this.value = new ArgumentValue(this.grammars, args.schema(choice.key), args.valueEnd(choice.key), args.follows(this.keys), this.quote);
        this.state = this.value.grammar;
        this.phase = "value";
        return this.then({events: this.argumentEvents(opening), ...forced}, after);
    }

    private pushValue(text: string): ShaperStep {
        const {json, rest, forced} = this.value!.push(text);
        const events = this.argumentEvents(json);
        if (!this.value!.isComplete)
            return {events};
        this.value = null;
        this.startKey();
        return forced == null && rest !== "" ? this.then({events}, rest) : this.withKeyLead(events, forced ?? "");
    }

    /**
     * Forces `forcedText`, then the markup every next choice begins with (`\n<parameter=`), which
     * the model would otherwise write a token at a time under the grammar.
     */
    private withKeyLead(events: GenerationEvent[], forcedText: string): ShaperStep {
        const texts = this.choices.map((choice) => choice.text);
        let lead = texts[0] ?? "";
        for (const text of texts)
            while (!text.startsWith(lead))
                lead = lead.slice(0, -1);
        if (lead === "")
            return {events, ...(forcedText === "" ? {} : {forced: this.grammars.tokenize(forcedText)})};
        const step = this.pushKey(lead);
        if (step.forced == null && step.finish == null && this.phase === "key")
            this.state = this.grammars.literal(texts.filter((text) => text.startsWith(this.written)).map((text) => text.slice(this.written.length)), "");
        return {...step, events: [...events, ...step.events], forced: [...this.grammars.tokenize(forcedText + lead), ...step.forced ?? []]};
    }

    /** After a call: another call's opening, the section's end, or the end of the reply. */
    private pushNext(text: string): ShaperStep {
        this.written += text;
        const {betweenCalls, prefix, sectionSuffix} = this.syntax;
        if (sectionSuffix.trim() !== "" && (sectionSuffix.trimStart().startsWith(this.written.trimStart())))
            return this.written.trim() === sectionSuffix.trim() ? {events: [], finish: "toolCalls"} : {events: []};
        const opening = (betweenCalls ?? "") + prefix;
        const rest = opening.slice(Math.min(this.written.length, opening.length));
        this.startName();
        return rest === "" ? {events: []} : {events: [], forced: this.grammars.tokenize(rest)};
    }

    private endCall(closing: string): ShaperStep {
        const events = this.argumentEvents(closing);
        this.calls++;
        // A model that keeps calling would have its last call cut off by max_tokens: end with whole calls instead.
        if (this.calls >= this.maxCalls || this.remaining < nextCallCost(this.syntax, this.tools)) {
            this.phase = "done";
            return {events, finish: "toolCalls"};
        }
        this.phase = "next";
        this.written = "";
        const {betweenCalls, prefix, sectionSuffix} = this.syntax;
        const endings = sectionSuffix.trim() === "" ? [] : [sectionSuffix.trimStart()];
        this.state = this.grammars.literal([(betweenCalls ?? "") + prefix, ...endings], "", {optional: true});
        return {events};
    }

    /** The keys the model may write next, or the call's end. */
    private startKey(): void {
        this.choices = this.arguments!.keyChoices(this.keys);
        this.phase = "key";
        this.written = "";
        this.state = this.grammars.literal(this.choices.map((choice) => choice.text), "");
    }

    private argumentEvents(text: string): GenerationEvent[] {
        return text === "" ? [] : [{type: "toolArguments", index: this.calls, text}];
    }
}
