import {z} from "zod";

/** A token id as JSON carries it: llama.cpp's ids are int32 (the model's vocabulary bounds them further). */
const tokenId = z.number().int().min(0).max(2 ** 31 - 1);

/**
 * `content`: a text, or llama-server's mixed list of texts and token ids. Checked entry by entry up
 * to the first at fault, not as a zod union per entry (openai-shared/textsOrTokenIds.ts says why).
 */
const contentField = z.union([z.string(), z.array(z.unknown())], {error: "content must be a string or an array of strings and token ids"})
    .transform((content, context): Array<string | number> => {
        if (typeof content === "string")
            return [content];
        const index = content.findIndex((entry) => typeof entry !== "string" && !tokenId.safeParse(entry).success);
        if (index < 0)
            return content as Array<string | number>;
        context.issues.push({code: "custom", input: content[index], path: [index], message: "expected a string or a token id (an integer from 0)"});
        return z.NEVER;
    });

/**
 * `POST /tokenize`, as llama-server takes it, with chatserve's `model` (it serves many): special
 * tokens added around the text only when asked (`add_special`, default false), special-token text
 * read as tokens unless told not to (`parse_special`, default true), each token's text with it on
 * `with_pieces`.
 */
export const tokenizeRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    content: contentField,
    add_special: z.boolean().nullish(),
    parse_special: z.boolean().nullish(),
    with_pieces: z.boolean().nullish()
});

export type TokenizeRequest = z.infer<typeof tokenizeRequestSchema>;

/** `POST /detokenize`: token ids → their text, special tokens shown. */
export const detokenizeRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    tokens: z.array(z.unknown()).transform((tokens, context): number[] => {
        const index = tokens.findIndex((token) => !tokenId.safeParse(token).success);
        if (index < 0)
            return tokens as number[];
        context.issues.push({code: "custom", input: tokens[index], path: [index], message: "expected a token id (an integer from 0)"});
        return z.NEVER;
    })
});

export type DetokenizeRequest = z.infer<typeof detokenizeRequestSchema>;
