import type {LlamaGrammarEvaluationState, TokenBias} from "node-llama-cpp";
import type {GenerationEvent, JsonSchema} from "../types.js";
import {ConstrainedJson} from "./constrainedJson.js";
import type {ReplyGrammars} from "./grammars.js";
import {textEvents, type ReplyShaper, type ShaperStep} from "./replyShaper.js";
import type {ToolCallReply} from "./toolCallReply.js";

/**
 * `tool_choice: "auto"` with `response_format`: the reply is tool calls or a JSON answer, as at
 * OpenAI. The model chooses at its first token, under a grammar that allows the call's opening or
 * the answer's JSON (grammars.jsonOr). Text that could still become a call's opening (Llama 3's
 * `{"name":`) is held; once it cannot, it is the answer's, streamed as content and complete at its
 * closing character. A call goes on as `calls` writes it.
 */
export class CallOrAnswerReply implements ReplyShaper {
    public readonly opening = {tokens: [], events: []};
    private readonly answer: ConstrainedJson;
    private chosen: "calls" | "answer" | null = null;
    private held = "";

    public constructor(grammars: ReplyGrammars, private readonly calls: ToolCallReply, schema: JsonSchema | null) {
        const opening = calls.triggerIsToken ? {token: grammars.tokenize(calls.trigger)[0]!} : {text: calls.trigger};
        this.answer = new ConstrainedJson(grammars, schema, grammars.jsonOr(schema, opening));
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.chosen === "calls" ? this.calls.grammar() : this.answer.grammar;
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.chosen === "calls" ? this.calls.tokenBias(remainingTokens) : this.answer.tokenBias(remainingTokens);
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        if (this.chosen === "calls")
            return this.calls.push(text, remainingTokens);
        if (this.chosen === "answer")
            return this.pushAnswer(text);
        this.held += text;
        const lead = this.held.trimStart();
        if (lead.startsWith(this.calls.trigger)) {
            this.chosen = "calls";
            return this.calls.openCall();
        }
        if (this.calls.trigger.startsWith(lead))
            return {events: []};
        this.chosen = "answer";
        return this.pushAnswer(this.takeHeld());
    }

    public end(rest: string): ShaperStep {
        return this.chosen === "calls" ? this.calls.end(rest) : {events: this.pushAnswer(this.takeHeld() + rest).events, finish: "stop"};
    }

    public cut(rest: string): GenerationEvent[] {
        return this.chosen === "calls" ? this.calls.cut(rest) : this.pushAnswer(this.takeHeld() + rest).events;
    }

    private pushAnswer(text: string): ShaperStep {
        const events = textEvents(this.answer.take(text));
        return this.answer.isComplete ? {events, finish: "stop"} : {events};
    }

    private takeHeld(): string {
        const held = this.held;
        this.held = "";
        return held;
    }
}
