import {BadRequestError} from "../../errors.js";

/**
 * The most choices one request may ask for: `n` per prompt times the prompts of a legacy
 * completions `prompt` list. They run one after another on one sequence, so an unbounded request
 * could hold that sequence for minutes while other requests wait (a 1,000-prompt request held one
 * for over 30 s); OpenAI's own ceiling for `n` is 128.
 */
export const maxChoicesPerRequest = 128;

/** How many choices the request makes (`prompts` × `n`), or a 400 naming the field that went over. */
export function choiceCount(n: number | null | undefined, prompts = 1): number {
    const perPrompt = n ?? 1;
    const total = perPrompt * prompts;
    if (total > maxChoicesPerRequest) {
        const param = prompts > 1 && perPrompt === 1 ? "prompt" : "n";
        const what = prompts > 1 ? `${prompts} prompts × n = ${perPrompt} make ${total} choices` : `n = ${perPrompt}`;
        throw new BadRequestError(`Too many choices: ${what}; a request may ask for at most ${maxChoicesPerRequest}.`, {param, code: "invalid_value"});
    }
    return total;
}
