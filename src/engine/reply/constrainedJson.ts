import type {LlamaGrammarEvaluationState, TokenBias} from "node-llama-cpp";
import type {JsonSchema} from "../generationOptions.js";
import type {ReplyGrammars} from "./grammars.js";
import {JsonScanner} from "./jsonScanner.js";
import {minimalJsonLength} from "./minimalJson.js";

/**
 * One JSON value generated under its schema's grammar (a `response_format` reply, a tool call's
 * arguments): which part of each token's text belongs to it, when it is complete, and, once the
 * budget left is only what a minimal completion needs, a bias toward closing tokens so it still
 * ends as valid JSON.
 */
export class ConstrainedJson {
    public readonly grammar: LlamaGrammarEvaluationState;
    private readonly scanner = new JsonScanner();
    private readonly reserve: number;

    /** `grammar`: a state that constrains the value, when not the schema's own (one that also allows a tool call). */
    public constructor(private readonly grammars: ReplyGrammars, schema: JsonSchema | null, grammar?: LlamaGrammarEvaluationState) {
        this.grammar = grammar ?? grammars.json(schema);
        this.reserve = closingReserve(schema);
    }

    public get isComplete(): boolean {
        return this.scanner.isComplete;
    }

    /** The part of `text` that belongs to the value (all of it, unless the value ends inside it). */
    public take(text: string): string {
        return text.slice(0, this.scanner.push(text));
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return remainingTokens <= this.reserve + this.scanner.openScopes ? this.grammars.closingBias(this.scanner.isInString) : undefined;
    }
}

/** Tokens kept for closing a value of `schema`: its minimal length in characters, which bounds its tokens. */
export function closingReserve(schema: JsonSchema | null): number {
    return 8 + (schema == null ? 2 : minimalJsonLength(schema));
}
