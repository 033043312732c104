import type {LlamaGrammarEvaluationState, TokenBias} from "node-llama-cpp";
import type {JsonSchema} from "../generationOptions.js";
import type {GenerationEvent} from "../generationEvents.js";
import {ConstrainedJson} from "./constrainedJson.js";
import type {ReplyGrammars} from "./grammars.js";
import {textEvents, type ReplyShaper, type ShaperStep} from "./replyShaper.js";

/** A JSON reply (`response_format`): constrained from its first token, streamed as content, complete at its closing character. */
export class JsonReply implements ReplyShaper {
    public readonly opening = {tokens: [], events: []};
    private readonly value: ConstrainedJson;

    /** `grammar`: a state that constrains the value, when not the schema's own (one that also allows a tool call). */
    public constructor(grammars: ReplyGrammars, schema: JsonSchema | null, grammar?: LlamaGrammarEvaluationState) {
        this.value = new ConstrainedJson(grammars, schema, grammar);
    }

    public grammar(): LlamaGrammarEvaluationState {
        return this.value.grammar;
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.value.tokenBias(remainingTokens);
    }

    public push(text: string): ShaperStep {
        const events = textEvents(this.value.take(text));
        return this.value.isComplete ? {events, finish: "stop"} : {events};
    }

    public end(rest: string): ShaperStep {
        return {events: this.push(rest).events, finish: "stop"};
    }

    public cut(rest: string): GenerationEvent[] {
        return this.push(rest).events;
    }
}
