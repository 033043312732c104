import type {LlamaGrammarEvaluationState} from "node-llama-cpp";
import type {GenerationEvent} from "../generationEvents.js";
import type {ReplyGrammars} from "./grammars.js";
import {textEvents, type ReplyShaper, type ShaperStep} from "./replyShaper.js";

/**
 * A reply under a client's own grammar (GBNF, or a regex or list of choices written as one):
 * constrained from its first token, streamed as content. It ends when the model ends it, which
 * llama.cpp's grammar allows only where the grammar accepts the text so far (and forces once
 * nothing more can follow). Stop sequences do not apply, as with JSON: cutting the text at one
 * would hand back what the grammar does not match.
 */
export class GrammarReply implements ReplyShaper {
    public readonly opening = {tokens: [], events: []};
    private readonly state: LlamaGrammarEvaluationState;

    public constructor(grammars: ReplyGrammars, grammar: string) {
        this.state = grammars.text(grammar);
    }

    public grammar(): LlamaGrammarEvaluationState {
        return this.state;
    }

    public tokenBias(): undefined {
        return undefined;
    }

    public push(text: string): ShaperStep {
        return {events: textEvents(text)};
    }

    public end(rest: string): ShaperStep {
        return {events: textEvents(rest), finish: "stop"};
    }

    public cut(rest: string): GenerationEvent[] {
        return textEvents(rest);
    }
}
