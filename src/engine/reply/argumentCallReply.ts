import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {ArgumentCallSyntax} from "../preparedPrompt.js";
import type {ReplyFormat} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import {hiddenMarkers} from "./argumentMarkup.js";
import {ArgumentCallSequence} from "./argumentCallSequence.js";
import type {ReplyGrammars} from "./grammars.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";
import {TextReply} from "./textReply.js";

type ToolCallsFormat = Extract<ReplyFormat, {type: "toolCalls"}>;

const maxCallsPerReply = 16;

/**
 * A reply of tool calls in a per-argument syntax (Qwen3-Coder's `<function=NAME>` with a
 * `<parameter=KEY>` per argument, GLM's `<arg_key>`, MiniMax-M2's `<invoke>`, Gemma 4's
 * `call:NAME{key:value}`), each call under its grammars (reply/argumentCallSequence.ts).
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
    private readonly calls: ArgumentCallSequence;
    /** Free text until the first call opens. */
    private inText = true;
    /** Recent free text, to find what followed a trigger in the same token. */
    private seen = "";
    private shown: Map<Token, string> | null = null;

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
        const maxCalls = named != null || !format.parallel || syntax.betweenCalls == null ? 1 : maxCallsPerReply;
        this.calls = new ArgumentCallSequence(grammars, syntax, format.tools, maxCalls);
        if (choice === "required") {
            this.opening.tokens = grammars.tokenize(opening);
            this.inText = false;
            this.calls.startName();
        } else if (named != null) {
            this.opening.tokens = grammars.tokenize(opening + named.name + syntax.nameSuffix);
            this.inText = false;
            this.opening.events = [this.calls.startCall(named)];
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
        return this.inText ? undefined : this.calls.state;
    }

    public tokenBias(): TokenBias | undefined {
        return this.format.choice === "none" ? this.grammars.banning(this.triggers[0]!) : undefined;
    }

    public push(text: string, remainingTokens = Infinity): ShaperStep {
        return this.inText ? this.pushText(text) : this.calls.push(text, remainingTokens);
    }

    public end(rest: string): ShaperStep {
        if (this.inText)
            return this.matcher.end(rest);
        return {events: this.cut(rest), finish: "toolCalls"};
    }

    /** The model stopped inside a call: the call is handed on with what it has, its JSON closed, never dropped. */
    public cut(rest: string): GenerationEvent[] {
        return this.inText ? this.matcher.cut(rest) : this.calls.cut(rest);
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
        this.inText = false;
        this.calls.startName();
        if (after === "" || rest !== "")
            return {events: step.events, ...(rest === "" ? {} : {forced: this.grammars.tokenize(rest)})};
        return this.calls.then({events: step.events}, after);
    }
}
