import {setTimeout as sleep} from "node:timers/promises";
import type {HttpTarget} from "./httpStreams.js";
import type {Suite} from "./pairedComparison.js";
import {promptText} from "./prompts.js";
import {median} from "./stats.js";
import {freshImage, streamTimed, ttft, type VisionMessage} from "./visionStreams.js";

/**
 * What `npm run bench:vision` measures on each server, run by run: a one-image request against
 * the same request without its image, the follow-up turn that resends the image, and the stall a
 * text stream sees while another request's image is encoded, beside the stall a text prompt of
 * the same size causes. Every image is new (no cache hit) except the follow-up's, which must hit.
 */
export type VisionFigures = {
    textTtft: number,
    imageTtft: number,
    imageEndToEnd: number,
    imagePromptTokens: number,
    followUpTtft: number,
    followUpCachedTokens: number,
    /** The text stream's gaps between content chunks (ms): median before the image request, longest while it is encoded. */
    normalGap: number,
    longestGap: number,
    tokensDuringImage: number,
    imageTtftBesideStream: number,
    /** Every gap of the text stream that overlaps the image's time to first token, for the JSON. */
    gapsDuringImage: number[],
    /** The text stream ran out (or finished) before the image's first token: its gaps stop short. */
    streamEndedEarly: boolean,
    /** The same stall measure for a text-only prompt of about the image request's size. */
    textPromptLongestGap: number,
    textPromptNormalGap: number,
    textPromptTtftBesideStream: number
};

export type VisionSettings = {
    /** max_tokens of the one-image request and its follow-up. */
    replyTokens: number,
    /** max_tokens of the stall phase's text stream (it is cut once the image is done). */
    streamTokens: number
};

/** Text tokens the stream makes before the image request goes (its steady pace), and after the image's reply. */
const paceTokens = 30;
const afterTokens = 40;

const question = (tag: string) => `${tag}: what is in this picture? Answer in one short sentence.`;

export function visionSuite(settings: VisionSettings): Suite<VisionFigures> {
    return {
        phases: [
            async (target, run) => {
                const tag = `text ${run} ${Math.random()}`;
                return {textTtft: ttft(await streamTimed(target.url, target.model, [{role: "user", content: question(tag)}], settings.replyTokens))};
            },
            (target, run) => imageAndFollowUp(target, run, settings),
            (target, run) => imageStall(target, run, settings),
            (target, run) => textStall(target, run, settings)
        ],
        rows: [
            {name: "text-only request TTFT", unit: "ms", pick: (figures) => figures.textTtft, digits: 0},
            {name: "one-image request TTFT (new image)", unit: "ms", pick: (figures) => figures.imageTtft, digits: 0},
            {name: "image cost: image TTFT − text TTFT", unit: "ms", pick: (figures) => figures.imageTtft - figures.textTtft, digits: 0},
            {name: `one-image request end to end (${settings.replyTokens} tokens)`, unit: "ms", pick: (figures) => figures.imageEndToEnd, digits: 0},
            {name: "image request prompt tokens", unit: "tokens", pick: (figures) => figures.imagePromptTokens, digits: 0},
            {name: "follow-up turn TTFT (same image)", unit: "ms", pick: (figures) => figures.followUpTtft, digits: 0},
            {name: "follow-up cached tokens", unit: "tokens", pick: (figures) => figures.followUpCachedTokens, digits: 0},
            {name: "text stream: normal gap (median before)", unit: "ms", pick: (figures) => figures.normalGap, digits: 1},
            {name: "text stream: longest gap during image TTFT", unit: "ms", pick: (figures) => figures.longestGap, digits: 0},
            {name: "longest gap ÷ normal gap", unit: "steps", pick: (figures) => figures.longestGap / figures.normalGap, digits: 1},
            {name: "text tokens during image TTFT", unit: "tokens", pick: (figures) => figures.tokensDuringImage, digits: 0},
            {name: "image TTFT beside the text stream", unit: "ms", pick: (figures) => figures.imageTtftBesideStream, digits: 0},
            {name: "for comparison: longest gap during a ~600-token text prompt's TTFT", unit: "ms", pick: (figures) => figures.textPromptLongestGap, digits: 0},
            {name: "that text prompt's TTFT beside the text stream", unit: "ms", pick: (figures) => figures.textPromptTtftBesideStream, digits: 0}
        ]
    };
}

/** A new image in turn 1, then turn 2 resending it with turn 1's reply: the image should come from the cache. */
async function imageAndFollowUp(target: HttpTarget, run: number, settings: VisionSettings): Promise<Partial<VisionFigures>> {
    const turn1: VisionMessage = {role: "user", content: [{type: "text", text: question(`image ${run} ${Math.random()}`)}, freshImage()]};
    const first = await streamTimed(target.url, target.model, [turn1], settings.replyTokens);
    const second = await streamTimed(target.url, target.model,
        [turn1, {role: "assistant", content: first.content}, {role: "user", content: "And what colours does it have?"}], settings.replyTokens);
    return {
        imageTtft: ttft(first),
        imageEndToEnd: first.endedAt - first.startedAt,
        imagePromptTokens: first.promptTokens,
        followUpTtft: ttft(second),
        followUpCachedTokens: second.cachedTokens
    };
}

/** What a text stream saw while another request's prompt went in. */
type Stall = {normalGap: number, longestGap: number, tokensDuring: number, ttftBeside: number, gapsDuring: number[], endedEarly: boolean};

async function imageStall(target: HttpTarget, run: number, settings: VisionSettings): Promise<Partial<VisionFigures>> {
    const request: VisionMessage = {role: "user", content: [{type: "text", text: question(`stall image ${run} ${Math.random()}`)}, freshImage()]};
    const stall = await stallBeside(target, run, settings, request);
    return {
        normalGap: stall.normalGap, longestGap: stall.longestGap, tokensDuringImage: stall.tokensDuring,
        imageTtftBesideStream: stall.ttftBeside, gapsDuringImage: stall.gapsDuring, streamEndedEarly: stall.endedEarly
    };
}

/** The same with a text prompt of the image request's size (~600 tokens): what any prompt of that length costs the stream. */
async function textStall(target: HttpTarget, run: number, settings: VisionSettings): Promise<Partial<VisionFigures>> {
    const stall = await stallBeside(target, run, settings, {role: "user", content: promptText(`stall text ${run} ${Math.random()}`, 600)});
    return {textPromptLongestGap: stall.longestGap, textPromptNormalGap: stall.normalGap, textPromptTtftBesideStream: stall.ttftBeside};
}

/**
 * A long greedy text stream; once it has `paceTokens` tokens, `request`. The stream is cut
 * `afterTokens` tokens after the request's reply ends. Its chunk gaps: the median before the
 * request (a normal step) and the longest one overlapping the request's time to first token
 * (for an image: its encode and its decode into the context).
 */
async function stallBeside(target: HttpTarget, run: number, settings: VisionSettings, request: VisionMessage): Promise<Stall> {
    const controller = new AbortController();
    let count = 0;
    let paced!: () => void;
    const pace = new Promise<void>((resolve) => paced = resolve);
    let cutAt = Number.POSITIVE_INFINITY;
    let cut!: () => void;
    const enough = new Promise<void>((resolve) => cut = resolve);
    const text = streamTimed(target.url, target.model, [{role: "user", content: promptText(`stream ${run} ${Math.random()}`, 40)}], settings.streamTokens, {
        signal: controller.signal,
        onChunk: (chunks) => {
            count = chunks;
            if (chunks === paceTokens)
                paced();
            if (chunks >= cutAt)
                cut();
        }
    });
    await Promise.race([pace, text]);
    if (count < paceTokens)
        throw new Error(`the text stream ended after ${count} tokens, before the other request (finish: ${(await text).finishReason})`);

    const other = await streamTimed(target.url, target.model, [request], settings.replyTokens);
    cutAt = count + afterTokens;
    await Promise.race([enough, text, sleep(10_000)]);
    controller.abort();
    const stream = await text;

    const windowStart = other.startedAt;
    const windowEnd = other.firstContentAt ?? other.endedAt;
    const times = stream.chunkTimes;
    const before: number[] = [];
    const during: number[] = [];
    for (let at = 1; at < times.length; at++) {
        const [from, to] = [times[at - 1]!, times[at]!];
        if (to <= windowStart && at > 5)
            before.push(to - from);
        else if (to > windowStart && from < windowEnd)
            during.push(to - from);
    }
    return {
        normalGap: median(before),
        longestGap: during.length > 0 ? Math.max(...during) : Number.NaN,
        tokensDuring: times.filter((time) => time > windowStart && time <= windowEnd).length,
        ttftBeside: ttft(other),
        gapsDuring: during.map((gap) => Math.round(gap * 10) / 10),
        endedEarly: (times.at(-1) ?? 0) < windowEnd
    };
}
