import {describe, expect, it} from "vitest";
import {StopMatcher} from "../../../src/engine/stopMatcher.js";

/** Feeds pieces in order and returns everything emitted, flush included. */
function run(stops: string[], pieces: string[]): string {
    const matcher = new StopMatcher(stops);
    return pieces.map((piece) => matcher.push(piece)).join("") + matcher.flush();
}

describe("StopMatcher", () => {
    it("passes text through when there are no stops", () => {
        const matcher = new StopMatcher([]);
        expect(matcher.push("Hello")).toBe("Hello");
        expect(matcher.push(" world")).toBe(" world");
        expect(matcher.flush()).toBe("");
        expect(matcher.hasStopped).toBe(false);
    });

    it("cuts at a stop inside one piece, dropping the stop and what follows", () => {
        const matcher = new StopMatcher(["END"]);
        expect(matcher.push("abcENDxyz")).toBe("abc");
        expect(matcher.hasStopped).toBe(true);
        expect(matcher.flush()).toBe("");
    });

    it("finds a stop that spans several pieces", () => {
        expect(run(["<|end|>"], ["Hi", " <|", "en", "d|", "> more"])).toBe("Hi ");
    });

    it("holds back a possible stop prefix, then releases it when the match fails", () => {
        const matcher = new StopMatcher(["STOP"]);
        expect(matcher.push("abST")).toBe("ab");
        expect(matcher.push("O")).toBe("");
        expect(matcher.push("P!".slice(1))).toBe("STO!");
        expect(matcher.hasStopped).toBe(false);
    });

    it("releases a held prefix at flush: the reply ended without completing the stop", () => {
        const matcher = new StopMatcher(["STOP"]);
        expect(matcher.push("abcST")).toBe("ab" + "c");
        expect(matcher.flush()).toBe("ST");
        expect(matcher.flush()).toBe("");
    });

    it("holds only the longest suffix that can still start a stop", () => {
        const matcher = new StopMatcher(["aab"]);
        expect(matcher.push("xaa")).toBe("x");
        expect(matcher.push("a")).toBe("a");
        expect(matcher.push("b tail")).toBe("");
        expect(matcher.hasStopped).toBe(true);
    });

    it("the earliest stop wins, whatever the order of the list", () => {
        expect(run(["world", "lo"], ["Hello world"])).toBe("Hel");
        expect(run(["lo", "world"], ["Hello world"])).toBe("Hel");
    });

    it("the earliest stop wins when both complete in the same buffer", () => {
        expect(run(["bc", "abcd"], ["xab", "cd"])).toBe("x");
    });

    it("a short stop completing inside a held longer prefix cuts there", () => {
        // "ab" is held as a possible "abcX"; "bc" then completes: the "a" before it is kept.
        expect(run(["abcX", "bc"], ["xab", "c", "Y"])).toBe("xa");
    });

    it("ignores empty stop strings", () => {
        expect(run(["", "END"], ["abc", "END"])).toBe("abc");
        expect(run([""], ["abc"])).toBe("abc");
    });

    it("emits nothing after a stop", () => {
        const matcher = new StopMatcher(["."]);
        expect(matcher.push("One. Two")).toBe("One");
        expect(matcher.push("three")).toBe("");
        expect(matcher.push(".")).toBe("");
        expect(matcher.flush()).toBe("");
    });

    it("handles a stop at the very start", () => {
        expect(run(["\n\n"], ["\n", "\nhello"])).toBe("");
    });

    it("takes a stop list too long to spread into one call's arguments", () => {
        const stops = Array.from({length: 200_000}, (_, index) => `s${index}`);
        expect(run([...stops, "END"], ["abc", "EN", "D"])).toBe("abc");
    });

    it("finds a stop whose beginning repeats inside it, across pieces, holding back only what could still match", () => {
        // "aab" inside "aaab": after "aa", the automaton falls back to "aa" rather than starting over.
        expect(run(["aab"], ["a", "a", "a", "b", "tail"])).toBe("a");
        const matcher = new StopMatcher(["a".repeat(50) + "b", "abc"]);
        let emitted = "";
        for (let index = 0; index < 120; index++)
            emitted += matcher.push("a");
        // Only the 50 "a"s that could still begin the first stop are held.
        expect(emitted).toBe("a".repeat(70));
        expect(matcher.push("b")).toBe("");
        expect(matcher.matchedStop).toBe("a".repeat(50) + "b");
    });
});
