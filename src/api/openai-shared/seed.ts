import {z} from "zod";

/**
 * OpenAI's `seed` is any 64-bit integer, and clients send ones past 2^53 (Python's `2**63 - 1`).
 * JSON parses those to the nearest double, which zod's `int()` refuses as unsafe; every such double
 * is a whole number, so any whole number is taken (generationSettings.ts folds it into llama.cpp's 32 bits).
 */
export const seed = z.number().refine(Number.isInteger, "seed must be an integer");
