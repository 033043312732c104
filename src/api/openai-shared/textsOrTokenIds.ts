import {z} from "zod";

/** OpenAI's limit on the entries of one request's prompt or input: strings, or lists of token ids. */
export const maxEntries = 2048;

type Problem = {message: string, path: number[]};

/** The message for a prompt (or input) of none of the forms. */
const forms = (field: string) => `${field} must be a string, an array of strings, an array of token ids, or an array of arrays of token ids`;

/**
 * A prompt (legacy completions) or an input (embeddings) in any of OpenAI's four forms: a string,
 * strings, token ids, or lists of token ids (each list one prompt). An array is checked against the
 * form its first entry names, entry by entry up to the first one at fault: a zod union (or array)
 * of a million bad entries built a million issues, seconds of the event loop for one 400.
 */
export function textsOrTokenIds(field: string) {
    const shape = z.union([z.string(), z.array(z.unknown()).min(1, `${field} must not be an empty array`)], {error: forms(field)});
    return shape.transform((value, context): string | string[] | number[] | number[][] => {
        if (typeof value === "string")
            return value;
        const problem = problemWith(value, field);
        if (problem == null)
            return value as string[] | number[] | number[][];
        context.issues.push({code: "custom", input: value, ...problem});
        return z.NEVER;
    });
}

function problemWith(entries: readonly unknown[], field: string): Problem | null {
    const first = entries[0];
    if (typeof first === "number")
        return problemWithIds(entries);
    if (entries.length > maxEntries)
        return {message: `${field} may hold at most ${maxEntries} entries`, path: []};
    if (typeof first !== "string" && !Array.isArray(first))
        return {message: forms(field), path: [0]};
    if (typeof first === "string") {
        const index = entries.findIndex((entry) => typeof entry !== "string");
        return index < 0 ? null : {message: "expected a string, as the first entry is", path: [index]};
    }
    for (const [index, ids] of entries.entries()) {
        if (!Array.isArray(ids))
            return {message: "expected an array of token ids, as the first entry is", path: [index]};
        if (ids.length === 0)
            return {message: "a list of token ids must not be empty", path: [index]};
        const problem = problemWithIds(ids);
        if (problem != null)
            return {message: problem.message, path: [index, ...problem.path]};
    }
    return null;
}

function problemWithIds(ids: readonly unknown[]): Problem | null {
    for (const [index, id] of ids.entries()) {
        if (typeof id !== "number" || !Number.isInteger(id))
            return {message: "a token id is a whole number", path: [index]};
        if (id < 0)
            return {message: "a token id is not negative", path: [index]};
    }
    return null;
}
