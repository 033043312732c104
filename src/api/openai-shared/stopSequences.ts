import {z} from "zod";

/**
 * `stop`: a string or a list of at most `max` strings. Every sequence is looked for after every
 * token, so the list is bounded: 200,000 of them held the event loop for every client.
 */
export function stopSequences(max: number) {
    return z.union([z.string(), z.array(z.unknown())], {error: "stop must be a string or an array of strings"})
        .transform((stop, context): string | string[] => {
            // The length first, then entry by entry up to the first at fault: checking a million
            // entries against a union first built an issue for each.
            const fail = (message: string, path: number[] = []) => {
                context.issues.push({code: "custom", input: stop, message, path});
                return z.NEVER;
            };
            if (typeof stop === "string")
                return stop;
            if (stop.length > max)
                return fail(`stop may hold at most ${max} sequences`);
            const index = stop.findIndex((sequence) => typeof sequence !== "string");
            return index < 0 ? stop as string[] : fail("a stop sequence is a string", [index]);
        });
}
