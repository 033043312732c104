import {z} from "zod";

/**
 * `stop`: a string or a list of at most `max` strings. Every sequence is looked for after every
 * token, so the list is bounded: 200,000 of them held the event loop for every client.
 */
export function stopSequences(max: number) {
    return z.union([z.string(), z.array(z.string())], {error: "stop must be a string or an array of strings"})
        .refine((stop) => typeof stop === "string" || stop.length <= max, `stop may hold at most ${max} sequences`);
}
