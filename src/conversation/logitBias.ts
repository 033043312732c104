import {BadRequestError} from "../errors.js";

/**
 * OpenAI's `logit_bias` (token id → -100 to 100) as the bias the engine adds: -100 bans the token
 * outright (-Infinity, so not even a flat distribution can pick it). Ids are checked against the
 * model's vocabulary when it is known. Undefined when empty.
 */
export function toLogitBias(bias: Record<string, number> | null | undefined, vocabularySize?: number): Map<number, number> | undefined {
    const entries = Object.entries(bias ?? {}).filter(([, value]) => value !== 0);
    if (entries.length === 0)
        return undefined;
    const map = new Map<number, number>();
    for (const [key, value] of entries) {
        const token = Number(key);
        if (vocabularySize != null && token >= vocabularySize)
            throw new BadRequestError(`Invalid 'logit_bias': token id ${token} is not in this model's vocabulary (0 to ${vocabularySize - 1}).`,
                {param: "logit_bias", code: "invalid_value"});
        map.set(token, value <= -100 ? -Infinity : value);
    }
    return map;
}
