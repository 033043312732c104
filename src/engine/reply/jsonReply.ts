import type {LlamaGrammarEvaluationState, TokenBias} from "node-llama-cpp";
import type {GenerationEvent, JsonSchema} from "../types.js";
import type {ReplyGrammars} from "./grammars.js";
import {JsonScanner} from "./jsonScanner.js";
import {minimalJsonLength} from "./minimalJson.js";
import {textEvents, type ReplyShaper, type ShaperStep} from "./replyShaper.js";

/**
 * A JSON reply (`response_format`), constrained from its first token, streamed as content, and
 * complete at the character that closes the value. When the budget left is only what a minimal
 * completion needs, closing tokens are favoured so the reply still ends as valid JSON.
 */
export class JsonReply implements ReplyShaper {
    public readonly opening = {tokens: [], events: []};
    private readonly scanner = new JsonScanner();
    private readonly state: LlamaGrammarEvaluationState;
    private readonly reserve: number;

    public constructor(private readonly grammars: ReplyGrammars, schema: JsonSchema | null) {
        this.state = grammars.json(schema);
        this.reserve = closingReserve(schema);
    }

    public grammar(): LlamaGrammarEvaluationState {
        return this.state;
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return remainingTokens <= this.reserve + this.scanner.openScopes ? this.grammars.closingBias(this.scanner.isInString) : undefined;
    }

    public push(text: string): ShaperStep {
        const events = textEvents(text.slice(0, this.scanner.push(text)));
        return this.scanner.isComplete ? {events, finish: "stop"} : {events};
    }

    public end(rest: string): ShaperStep {
        return {events: this.push(rest).events, finish: "stop"};
    }

    public cut(rest: string): GenerationEvent[] {
        return this.push(rest).events;
    }
}

/** Tokens kept for closing a value of `schema`: its minimal length in characters, which bounds its tokens. */
export function closingReserve(schema: JsonSchema | null): number {
    return 8 + (schema == null ? 2 : minimalJsonLength(schema));
}
