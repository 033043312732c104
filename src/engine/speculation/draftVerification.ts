import type {Token} from "node-llama-cpp";

/**
 * How a drafted step's outputs become tokens, as plain decoding would have made them.
 *
 * A drafted step feeds the sequence its next token and then the draft: output i holds the logits
 * after draft token i−1 (output 0 those after the fed token). Plain decoding samples output 0, feeds
 * the result back, and samples again; here the feeding was done in advance, so output i+1 is valid
 * exactly when the token sampled from output i is draft token i. Each output is sampled in order,
 * with the generation's own sampler (its grammar, penalties and random state advance once per
 * token, as in plain decoding), until a sampled token is not the draft's; that token ends the step.
 * With temperature 0 the tokens are the greedy ones; with sampling each position is drawn from the
 * model's own distribution, one draw per token kept, so the output is distributed as without a draft.
 *
 * Returns the tokens kept: the draft's accepted head, then the token sampled after it (always at
 * least one token, at most the draft's length + 1).
 */
export async function verifyDraft(draft: readonly Token[], sampleOutput: (output: number) => Promise<Token>): Promise<Token[]> {
    const kept: Token[] = [];
    for (let output = 0; ; output++) {
        const token = await sampleOutput(output);
        kept.push(token);
        if (output >= draft.length || token !== draft[output])
            return kept;
    }
}

/** How many of a draft's tokens a verified step accepted (its kept tokens but the last). */
export function acceptedCount(kept: readonly Token[]): number {
    return kept.length - 1;
}
