import type {LoadedModel} from "../engine/loadedModel.js";
import type {ReplyFormat} from "../engine/generationOptions.js";
import {GrammarParseError} from "../engine/grammarDiagnosis.js";
import {PatternError, regexToGbnf} from "../engine/reply/patternGrammar.js";
import {textChoiceGbnf} from "../engine/reply/stringEnumTrie.js";
import {BadRequestError} from "../errors.js";
import type {TextConstraint, WirePath} from "./conversation.js";

/** The rule names of a choice's prefix tree (`choice-1`, …): a name a client's own GBNF never meets, since each is compiled alone. */
const choiceRule = "choice";

/**
 * A raw-text constraint → the GBNF the engine enforces. A regex is read by the same compiler as a
 * JSON schema's `pattern` (only its regular part: a lookaround or backreference is a 400 saying
 * so), and matches the whole reply; a choice is a prefix tree, so thousands of choices stay cheap.
 */
export function toGrammarFormat(constraint: TextConstraint, param: WirePath): Extract<ReplyFormat, {type: "grammar"}> {
    switch (constraint.kind) {
        case "gbnf":
            return {type: "grammar", grammar: constraint.grammar};
        case "regex":
            try {
                return {type: "grammar", grammar: `root ::= ${regexToGbnf(constraint.pattern)}\n`};
            } catch (error) {
                if (error instanceof PatternError)
                    throw new BadRequestError(`Invalid '${param}': the regular expression cannot be turned into a grammar (${error.message}).`,
                        {param, code: "invalid_value"});
                throw error;
            }
        case "choice":
            return {type: "grammar", grammar: `root ::= ${textChoiceGbnf(constraint.choices, choiceRule)}\n`};
    }
}

/**
 * Compiles the grammar before anything is sent, so one llama.cpp cannot parse is a 400 naming the
 * field and the line, in llama.cpp's own words (engine/grammarDiagnosis.ts), never a failed stream.
 */
export async function compileTextGrammar(model: LoadedModel, format: Extract<ReplyFormat, {type: "grammar"}>, param: WirePath): Promise<void> {
    try {
        await model.compileGrammar(format.grammar);
    } catch (error) {
        if (error instanceof GrammarParseError)
            throw new BadRequestError(`Invalid '${param}': llama.cpp cannot parse the grammar: ${error.reason}.`, {param, code: "invalid_grammar"});
        throw error;
    }
}
