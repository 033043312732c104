import {AgentSession} from "./promptCacheSession.js";

export type RotationFigures = {cold: number[], warm: number[], rotated: number[], rotatedCached: number[]};

/**
 * More conversations than sequences taking turns (the eight on a two-sequence model): each
 * begins once (cold), the two still holding a sequence take another turn (warm), then all take a
 * turn in order, so that each finds its sequence taken by others and must get its prefix back.
 * Times to the first token, in ms; `rotatedCached`: how many prompt tokens each rotated turn reused.
 */
export async function rotation(url: string, model: string, count: number, systemTokens: number, replyTokens: number): Promise<RotationFigures> {
    const sessions = Array.from({length: count}, (_, index) => new AgentSession(`Conversation ${index + 1} of ${count}`, systemTokens, replyTokens));
    const figures: RotationFigures = {cold: [], warm: [], rotated: [], rotatedCached: []};
    for (const session of sessions)
        figures.cold.push((await session.turn(url, model, "cold")).ttftMs);
    for (const session of sessions.slice(-2))
        figures.warm.push((await session.turn(url, model, "warm")).ttftMs);
    for (const session of sessions) {
        const turn = await session.turn(url, model, "rotated");
        figures.rotated.push(turn.ttftMs);
        figures.rotatedCached.push(turn.cachedTokens);
    }
    return figures;
}
