import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {TextReply} from "../../src/engine/reply/textReply.js";
import {ThoughtReply} from "../../src/engine/reply/thoughtReply.js";
import type {GenerationEvent, ThoughtMarkers} from "../../src/engine/types.js";

const think: ThoughtMarkers = {open: "<think>", close: "</think>", opened: false, opening: [], emptyThought: []};

/** Feeds `pieces` as tokens, then ends the reply (or cuts it at the budget); returns the reasoning and the answer. */
function shape(pieces: string[], {markers = think, stops = [] as string[], ending = "end" as "end" | "cut"} = {}) {
    const reply = new ThoughtReply(new TextReply(stops), markers);
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
        expect(shape(chars("<th"))).toEqual({reasoning: "", text: "<th", finish: "stop"});
    });

    it("starts inside the thought when the template opened it", () => {
        expect(shape(chars("\nplan</think>answer"), {markers: {...think, opened: true}})).toEqual({reasoning: "plan", text: "answer", finish: "stop"});
    });

    it("opens the reply with the marker's tokens when the template has every reply begin with it", () => {
        const markers = {...think, opening: [7, 8] as Token[]};
        expect(new ThoughtReply(new TextReply([]), markers).opening).toEqual({tokens: [7, 8], events: []});
        expect(shape(chars("plan\n</think>\n\nanswer"), {markers})).toEqual({reasoning: "plan", text: "answer", finish: "stop"});
    });

    it("opens a reply that must not think with an empty thought, and counts its markers as the thought's", () => {
        const markers = {...think, opening: [7] as Token[], emptyThought: [7, 8] as Token[]};
        const reply = new ThoughtReply(new TextReply([]), markers, false);
        expect(reply.opening.tokens).toEqual([7, 8]);
        expect(reply.push("\n\nHi", 10).events).toEqual([{type: "text", text: "Hi"}]);
        expect(reply.reasoningTokens).toBe(2);
        // A thought the prompt itself opened is the model's to close.
        const opened = new ThoughtReply(new TextReply([]), {...markers, opened: true, opening: []}, false);
        expect(opened.opening.tokens).toEqual([]);
        expect(opened.push("a</think>b", 10).events).toEqual([{type: "reasoning", text: "a"}, {type: "text", text: "b"}]);
    });

    it("keeps a thought that never closed, including a held partial marker, when the reply ends or is cut", () => {
        expect(shape(chars("<think>still going </th"))).toEqual({reasoning: "still going </th", text: "", finish: "stop"});
        expect(shape(chars("<think>cut here"), {ending: "cut"})).toEqual({reasoning: "cut here", text: "", finish: undefined});
    });

    it("counts the thought's tokens, markers included, for usage", () => {
        const count = (pieces: string[], markers = think) => {
            const reply = new ThoughtReply(new TextReply([]), markers);
            pieces.forEach((piece) => reply.push(piece, 100));
            return reply.reasoningTokens;
        };
        expect(count(["<th", "ink>", "a", " b", "</think>", "Hi", " there"])).toBe(5);
        expect(count(["a</think>", "Hi"], {...think, opening: [1, 2] as Token[]})).toBe(3);
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
