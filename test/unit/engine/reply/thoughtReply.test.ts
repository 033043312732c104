import {describe, expect, it} from "vitest";
import {TextReply} from "../../../../src/engine/reply/textReply.js";
import {ThoughtReply} from "../../../../src/engine/reply/thoughtReply.js";
import type {ThoughtMarkers} from "../../../../src/engine/preparedPrompt.js";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";

const think: ThoughtMarkers = {open: "<think>", close: "</think>", opened: false};

/** Feeds `pieces` as tokens, then ends the reply (or cuts it at the budget); returns the reasoning and the answer. */
function shape(pieces: string[], {markers = think, stops = [] as string[], ending = "end" as "end" | "cut", callTrigger = null as string | null} = {}) {
    const reply = new ThoughtReply(Object.assign(new TextReply(stops), {callTrigger}), markers);
    const events: GenerationEvent[] = [];
    let finish: string | undefined;
    for (const piece of pieces) {
        const step = reply.push(piece, 100);
        events.push(...step.events);
        finish = step.finish;
        if (finish != null)
            break;
    }
    if (finish == null) {
        if (ending === "end") {
            const step = reply.end("");
            events.push(...step.events);
            finish = step.finish;
        } else
            events.push(...reply.cut(""));
    }
    const joined = (type: string) => events.filter((event) => event.type === type).map((event) => (event as {text: string}).text).join("");
    return {reasoning: joined("reasoning"), text: joined("text"), finish};
}

/** One character per token: every marker and every whitespace run is split across tokens. */
const chars = (text: string) => [...text];

describe("ThoughtReply", () => {
    it("a call's opening marker inside the thought ends it there: the call is the answer's, never reasoning", () => {
        const opened = {...think, opened: true};
        for (const pieces of [["Need the weather.", "<tool_call>", "{…}"], chars("Need the weather.\n<tool_call>{…}")])
            expect(shape(pieces, {markers: opened, callTrigger: "<tool_call>"})).toEqual({reasoning: "Need the weather.", text: "<tool_call>{…}", finish: "stop"});
        // Without a call to make, the same text is thought.
        expect(shape(["Need", " <tool_call>", "</think>", "Hi"], {markers: opened})).toEqual({reasoning: "Need <tool_call>", text: "Hi", finish: "stop"});
    });

    it("splits a thought at the reply's start from the answer, however the markers are split across tokens", () => {
        for (const pieces of [chars("<think>\nLet me plan.\n</think>\n\nHello there"), ["<think>", "\nLet me plan.\n", "</think>", "\n\nHello there"]])
            expect(shape(pieces)).toEqual({reasoning: "Let me plan.", text: "Hello there", finish: "stop"});
    });

    it("keeps whitespace inside the thought and the answer, dropping only the layout around them", () => {
        expect(shape(chars("<think>\n\na\n\nb \n</think>\n\nx\n  y"))).toEqual({reasoning: "a\n\nb", text: "x\n  y", finish: "stop"});
    });

    it("leaves a reply that does not open with the marker as it is, a marker later in it included", () => {
        expect(shape(chars("  Hi <think>x</think>"))).toEqual({reasoning: "", text: "  Hi <think>x</think>", finish: "stop"});
        expect(shape(chars("\n<think>x</think>"))).toEqual({reasoning: "", text: "\n<think>x</think>", finish: "stop"});
        expect(shape(chars("<thinking aloud"))).toEqual({reasoning: "", text: "<thinking aloud", finish: "stop"});
    });

    it("starts inside the thought when the template opened it", () => {
        expect(shape(chars("\nplan</think>answer"), {markers: {...think, opened: true}})).toEqual({reasoning: "plan", text: "answer", finish: "stop"});
    });

    it("keeps a thought that never closed, including a held partial marker, when the reply ends or is cut", () => {
        expect(shape(chars("<think>still going </th"))).toEqual({reasoning: "still going </th", text: "", finish: "stop"});
        expect(shape(chars("<think>cut here"), {ending: "cut"})).toEqual({reasoning: "cut here", text: "", finish: undefined});
    });

    it("drops the start of an opening marker that the budget cut short: it is not the answer", () => {
        expect(shape(["<th"], {ending: "cut"})).toEqual({reasoning: "", text: "", finish: undefined});
        expect(shape(["<"])).toEqual({reasoning: "", text: "", finish: "stop"});
    });

    it("counts the thought's tokens, markers included, for usage", () => {
        const count = (pieces: string[], markers = think) => {
            const reply = new ThoughtReply(new TextReply([]), markers);
            pieces.forEach((piece) => reply.push(piece, 100));
            return reply.reasoningTokens;
        };
        expect(count(["<th", "ink>", "a", " b", "</think>", "Hi", " there"])).toBe(5);
        expect(count(["a", " b</think>", "Hi"], {...think, opened: true})).toBe(2);
        expect(count(["<", "p>"])).toBe(0);
    });

    it("applies stop sequences to the answer only, and to a reply that opens with one", () => {
        expect(shape(chars("<think>a\n\nb</think>x\n\ny"), {stops: ["\n\n"]})).toEqual({reasoning: "a\n\nb", text: "x", finish: "stop"});
        expect(shape(chars("\n\n\nmore"), {stops: ["\n\n\n"]})).toEqual({reasoning: "", text: "", finish: "stop"});
    });

    it("streams the thought as it comes, holding back only what could be the closing marker or trailing whitespace", () => {
        const reply = new ThoughtReply(new TextReply([]), think);
        expect(reply.push("<think>one", 10).events).toEqual([{type: "reasoning", text: "one"}]);
        expect(reply.push(" two </", 10).events).toEqual([{type: "reasoning", text: " two"}]);
        expect(reply.push("b", 10).events).toEqual([{type: "reasoning", text: " </b"}]);
        expect(reply.push("</think>\n", 10).events).toEqual([]);
        expect(reply.push("Done", 10).events).toEqual([{type: "text", text: "Done"}]);
    });
});
