import {describe, expect, it} from "vitest";
import {SseReader} from "../../../web/src/sse.js";

const stream = 'data: {"a":1}\n\ndata: {"b":2}\n\n: keep-alive\n\ndata: [DONE]\n\n';

describe("SseReader", () => {
    it("reads every data payload whatever the pieces the text arrives in", () => {
        for (let size = 1; size <= stream.length; size++) {
            const reader = new SseReader();
            const payloads: string[] = [];
            for (let at = 0; at < stream.length; at += size)
                payloads.push(...reader.push(stream.slice(at, at + size)));
            expect(payloads).toEqual(['{"a":1}', '{"b":2}', "[DONE]"]);
        }
    });

    it("reads CRLF framing and joins a multi-line event's data lines", () => {
        const reader = new SseReader();
        expect(reader.push("event: x\r\ndata: one\r\ndata: two\r\n\r\n")).toEqual(["one\ntwo"]);
    });

    it("holds an unfinished event until its blank line comes", () => {
        const reader = new SseReader();
        expect(reader.push('data: {"a"')).toEqual([]);
        expect(reader.push(":1}\n")).toEqual([]);
        expect(reader.push("\n")).toEqual(['{"a":1}']);
    });
});
