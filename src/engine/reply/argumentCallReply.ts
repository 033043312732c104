import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {ArgumentCallSyntax} from "../preparedPrompt.js";
import type {ReplyFormat, ToolDefinition} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import {hiddenMarkers, nextCallCost, ToolArguments, type KeyChoice} from "./argumentMarkup.js";
import {ArgumentValue} from "./argumentValue.js";
import type {ReplyGrammars} from "./grammars.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";
import {TextReply} from "./textReply.js";

type ToolCallsFormat = Extract<ReplyFormat, {type: "toolCalls"}>;
type Phase = "text" | "name" | "key" | "value" | "next" | "done";

const maxCallsPerReply = 16;

/**
 * A reply of tool calls in a per-argument syntax (Qwen3-Coder's `<function=NAME>` with a
 * `<parameter=KEY>` per argument, GLM's `<arg_key>`, MiniMax-M2's `<invoke>`): the call's name is
 * one of the tools, each argument's key one of the tool's properties (required ones before the call
 * may close), and each value its property's (reply/argumentValue.ts). Markup is forced once the
 * model has chosen; the client gets each call's arguments as one JSON object, streamed.
 * With `tool_choice: "auto"` the model writes text until it opens a call with the family's opening
 * token, or with the call's own tag where a model leaves the opening out (`<function=`); text
 * before it is the reply's content.
 */
export class ArgumentCallReply implements ReplyShaper {
    public readonly opening: {tokens: Token[], events: GenerationEvent[]} = {tokens: [], events: []};
    /** Free text, ended by a client stop sequence or by a call's opening. */
    private readonly matcher: TextReply;
    private readonly triggers: string[];
    public readonly callTrigger: string | null;
    private readonly maxCalls: number;
    private phase: Phase = "text";
    private state: LlamaGrammarEvaluationState | undefined;
    private written = "";
    /** Recent free text, to find what followed a trigger in the same token. */
    private seen = "";
    private calls = 0;
    private arguments: ToolArguments | null = null;
    private keys: string[] = [];
    private choices: KeyChoice[] = [];
    private value: ArgumentValue | null = null;
    private shown: Map<Token, string> | null = null;
    /** Completion tokens left after the last token pushed. */
    private remaining = Infinity;

    public constructor(private readonly grammars: ReplyGrammars, private readonly syntax: ArgumentCallSyntax, private readonly format: ToolCallsFormat, stops: readonly string[]) {
        const opening = syntax.sectionPrefix + syntax.prefix;
        const first = grammars.tokenize(opening.trimStart())[0];
        const marker = first == null ? null : grammars.marker(first);
        const trigger = marker != null && opening.trimStart().startsWith(marker.text) ? marker.text : opening.trim();
        // A call's own tag where the opening marker is left out (Qwen3-Coder models write `<function=…>` alone).
        const ownTag = syntax.prefix.slice(syntax.prefix.indexOf(trigger) < 0 ? 0 : syntax.prefix.indexOf(trigger) + trigger.length).trim();
        this.triggers = [trigger, ...(ownTag.length >= 3 && ownTag !== trigger ? [ownTag] : [])];
        this.callTrigger = marker != null && format.choice === "auto" ? trigger : null;
        this.matcher = new TextReply([...stops, ...this.triggers]);
        const {choice} = format;
        const named = typeof choice === "object" ? format.tools.find((tool) => tool.name === choice.name)! : null;
        this.maxCalls = named != null || !format.parallel || syntax.betweenCalls == null ? 1 : maxCallsPerReply;
        if (choice === "required") {
            this.opening.tokens = grammars.tokenize(opening);
            this.startName();
        } else if (named != null) {
            this.opening.tokens = grammars.tokenize(opening + named.name + syntax.nameSuffix);
            this.opening.events = [this.startCall(named)];
        }
    }

    public get shownTokens(): ReadonlyMap<Token, string> {
        this.shown ??= hiddenMarkers(this.syntax, this.grammars);
        return this.shown;
    }

    public get stopSequence(): string | null {
        return this.matcher.stopSequence != null && !this.triggers.includes(this.matcher.stopSequence) ? this.matcher.stopSequence : null;
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.phase === "text" ? undefined : this.state;
    }

    public tokenBias(): TokenBias | undefined {
        return this.format.choice === "none" ? this.grammars.banning(this.triggers[0]!) : undefined;
    }

    public push(text: string, remainingTokens = Infinity): ShaperStep {
        this.remaining = remainingTokens;
        switch (this.phase) {
            case "text":
                return this.pushText(text);
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

    public end(rest: string): ShaperStep {
        if (this.phase === "text")
            return this.matcher.end(rest);
        return {events: this.cut(rest), finish: "toolCalls"};
    }

    /** The model stopped inside a call: the call is handed on with what it has, its JSON closed, never dropped. */
    public cut(rest: string): GenerationEvent[] {
        if (this.phase === "text")
            return this.matcher.cut(rest);
        const step = rest === "" ? {events: []} : this.push(rest);
        if (this.phase !== "key" && this.phase !== "value")
            return step.events;
        const closing = (this.value?.close() ?? "") + (this.keys.length === 0 ? "{}" : "}");
        this.phase = "done";
        return [...step.events, ...this.argumentEvents(closing)];
    }

    private pushText(text: string): ShaperStep {
        this.seen = (this.seen + text).slice(-256);
        const step = this.matcher.push(text);
        const trigger = this.matcher.stopSequence;
        if (trigger == null || !this.triggers.includes(trigger) || this.format.choice === "none")
            return step;
        // The rest of the opening is forced; text that came with the trigger goes on to the name.
        const after = this.seen.slice(this.seen.lastIndexOf(trigger) + trigger.length);
        const opening = this.syntax.sectionPrefix + this.syntax.prefix;
        const rest = trigger === this.triggers[0] ? opening.slice(opening.indexOf(trigger) + trigger.length) : "";
        this.startName();
        if (after === "" || rest !== "")
            return {events: step.events, ...(rest === "" ? {} : {forced: this.grammars.tokenize(rest)})};
        return this.then({events: step.events}, after);
    }

    private pushName(text: string): ShaperStep {
        this.written += text;
        const candidates = this.format.tools.filter((tool) => (tool.name + this.syntax.nameSuffix).startsWith(this.written) ||
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
        this.value = new ArgumentValue(this.grammars, this.arguments!.schema(choice.key), this.arguments!.valueEnd(choice.key), this.arguments!.follows(this.keys));
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
        if (this.calls >= this.maxCalls || this.remaining < nextCallCost(this.syntax, this.format.tools)) {
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

    /** Hands on what a token wrote past the markup it completed. */
    private then(step: ShaperStep, after: string): ShaperStep {
        if (after === "" || step.forced != null || step.finish != null)
            return step;
        const next = this.push(after, this.remaining);
        // That text was written under another grammar: where it leaves the choice open, the next
        // token's grammar starts after it.
        if (next.forced == null && next.finish == null && (this.phase === "name" || this.phase === "key") && this.written !== "") {
            const open = this.phase === "name" ? this.format.tools.map((tool) => tool.name + this.syntax.nameSuffix) : this.choices.map((choice) => choice.text);
            this.state = this.grammars.literal(open.filter((text) => text.startsWith(this.written)).map((text) => text.slice(this.written.length)), "");
        }
        return {...next, events: [...step.events, ...next.events]};
    }

    private startName(): void {
        this.phase = "name";
        this.written = "";
        this.state = this.grammars.literal(this.format.tools.map((tool) => tool.name), this.syntax.nameSuffix);
    }

    private startCall(tool: ToolDefinition): GenerationEvent {
        this.arguments = new ToolArguments(this.syntax, tool);
        this.keys = [];
        this.startKey();
        return {type: "toolCall", index: this.calls, name: tool.name};
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
