import {StopMatcher} from "../stopMatcher.js";
import type {GenerationEvent} from "../generationEvents.js";
import {textEvents, type ReplyShaper, type ShaperStep} from "./replyShaper.js";

/**
 * Free text with stop sequences applied. With a `trigger` (the opening of a tool call), seeing it
 * ends the text instead: `triggered` tells the caller to switch to the call.
 */
export class TextReply implements ReplyShaper {
    public readonly opening = {tokens: [], events: []};
    private readonly matcher: StopMatcher;

    public constructor(stops: readonly string[], private readonly trigger: string | null = null) {
        this.matcher = new StopMatcher(trigger == null ? stops : [...stops, trigger]);
    }

    public get triggered(): boolean {
        return this.trigger != null && this.matcher.matchedStop === this.trigger;
    }

    public get stopSequence(): string | null {
        return this.triggered ? null : this.matcher.matchedStop;
    }

    public grammar(): undefined {
        return undefined;
    }

    public tokenBias(): undefined {
        return undefined;
    }

    public push(text: string): ShaperStep {
        const events = textEvents(this.matcher.push(text));
        return this.matcher.hasStopped ? {events, finish: "stop"} : {events};
    }

    public end(rest: string): ShaperStep {
        return {events: this.cut(rest), finish: "stop"};
    }

    public cut(rest: string): GenerationEvent[] {
        return textEvents(this.matcher.push(rest) + this.matcher.flush());
    }
}
