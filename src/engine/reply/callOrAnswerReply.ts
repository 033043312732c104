import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {JsonSchema} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import type {CallOpening} from "./callOpening.js";
import type {ReplyGrammars} from "./grammars.js";
import {JsonReply} from "./jsonReply.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";
import type {ToolCallReply} from "./toolCallReply.js";

/**
 * `tool_choice: "auto"` with `response_format`: the reply is tool calls or a JSON answer, as at
 * OpenAI, under a grammar that allows a call's opening or the answer's JSON (grammars.jsonOr).
 * A call opened by a token of its own (Qwen's `<tool_call>`) is chosen at the first token. One
 * opened by text that JSON could begin with too (Llama 3's `{"name": "`) is chosen once the text
 * holds a tool's whole opening (`{"name": "get_weather", "parameters": `), so an answer whose first
 * key is "name" stays possible; until then the text is held. Text that can no longer become a call
 * is the answer's, streamed as content and complete at its closing character. A call goes on as
 * `calls` writes it.
 */
export class CallOrAnswerReply implements ReplyShaper {
    public readonly opening = {tokens: [], events: []};
    private readonly answer: JsonReply;
    /** A call's whole opening per tool, where it is text. */
    private readonly openings: ReturnType<CallOpening["named"]>;
    /** What held text may still become: the call's token, or a tool's whole opening. */
    private readonly openingTexts: readonly string[];
    private chosen: "calls" | "answer" | null = null;
    private held = "";

    private readonly callOpening: CallOpening;

    public constructor(grammars: ReplyGrammars, private readonly calls: ToolCallReply, schema: JsonSchema | null) {
        const {trigger, triggerIsToken} = this.callOpening = calls.callOpening;
        this.openings = triggerIsToken ? [] : this.callOpening.named();
        const opening = triggerIsToken ? {token: grammars.tokenize(trigger)[0]!} : {texts: this.openings.map(({text}) => text)};
        this.answer = new JsonReply(grammars, schema, grammars.jsonOr(schema, opening));
        this.openingTexts = triggerIsToken ? [trigger] : this.openings.map(({text}) => text);
    }

    public get shownTokens(): ReadonlyMap<Token, string> {
        return this.calls.shownTokens;
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.chosen === "calls" ? this.calls.grammar() : this.answer.grammar();
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.chosen === "calls" ? this.calls.tokenBias(remainingTokens) : this.answer.tokenBias(remainingTokens);
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        if (this.chosen === "calls")
            return this.calls.push(text, remainingTokens);
        if (this.chosen === "answer")
            return this.answer.push(text);
        this.held += text;
        const lead = this.held.trimStart();
        if (this.callOpening.triggerIsToken && lead.startsWith(this.callOpening.trigger)) {
            this.chosen = "calls";
            return this.calls.openCall();
        }
        const opened = this.openings.find((opening) => lead.startsWith(opening.text));
        if (opened != null) {
            this.chosen = "calls";
            const step = this.calls.openNamedCall(opened.tool);
            // A token may reach past the opening, into the arguments.
            const rest = lead.slice(opened.text.length);
            if (rest === "")
                return step;
            const next = this.calls.push(rest, remainingTokens);
            return {...next, events: [...step.events, ...next.events]};
        }
        if (this.openingTexts.some((opening) => opening.startsWith(lead)))
            return {events: []};
        this.chosen = "answer";
        return this.answer.push(this.takeHeld());
    }

    public end(rest: string): ShaperStep {
        return this.chosen === "calls" ? this.calls.end(rest) : this.answer.end(this.takeHeld() + rest);
    }

    public cut(rest: string): GenerationEvent[] {
        return this.chosen === "calls" ? this.calls.cut(rest) : this.answer.cut(this.takeHeld() + rest);
    }

    private takeHeld(): string {
        const held = this.held;
        this.held = "";
        return held;
    }
}
