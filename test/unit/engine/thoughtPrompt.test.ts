import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {endPromptForThought, type PromptEnd} from "../../../src/engine/thoughtPrompt.js";
import type {ThoughtSyntax} from "../../../src/engine/thoughtSyntax.js";

// Tokens: <think> 1, </think> 2, a line break 10 (blank), anything else a word; 90 is the assistant's opening, a special token.
const [think, unthink, nl, assistant] = [1, 2, 10, 90] as Token[];
const syntax = (opensEveryReply: boolean, hiddenMarkers = false): ThoughtSyntax => ({
    open: "<think>", close: "</think>", openToken: think!, closeToken: unthink!,
    opening: [think!, nl!], emptyThought: [think!, nl!, nl!, unthink!, nl!, nl!], opensEveryReply, hiddenMarkers
});
const end = (prompt: number[], opensEveryReply: boolean, options: Partial<PromptEnd> = {}, hiddenMarkers = false) => endPromptForThought(
    syntax(opensEveryReply, hiddenMarkers), prompt as Token[], (token) => token === nl, {newReply: true, thinking: true, continuedReply: "", ...options});

describe("endPromptForThought", () => {
    it("leaves the template's prompt as it is where the markers are special tokens (as llama-server does), saying whether it opened a thought", () => {
        expect(end([assistant!], true, {thinking: false}, true)).toEqual({tokens: [assistant], opened: false});
        expect(end([assistant!, think!, nl!], true, {thinking: false}, true)).toEqual({tokens: [assistant, think, nl], opened: true});
        expect(end([assistant!, think!, unthink!], true, {}, true)).toEqual({tokens: [assistant, think, unthink], opened: false});
    });

    it("opens a new reply's thought where the template's generation prompt does", () => {
        expect(end([5, assistant!], true)).toEqual({tokens: [5, assistant, think, nl], opened: true});
        expect(end([5, assistant!], false)).toEqual({tokens: [5, assistant], opened: false});
    });

    it("keeps an opening the template wrote itself, and closes it when the model must not think", () => {
        expect(end([assistant!, think!, nl!], false)).toEqual({tokens: [assistant, think, nl], opened: true});
        expect(end([assistant!, think!, nl!], false, {thinking: false})).toEqual({tokens: [assistant, ...syntax(false).emptyThought], opened: false});
    });

    it("takes back an empty thought, or a lone closing marker, that the template wrote for an empty message, when the model thinks", () => {
        expect(end([assistant!, think!, nl!, nl!, unthink!, nl!, nl!], false)).toEqual({tokens: [assistant], opened: false});
        expect(end([assistant!, unthink!], true)).toEqual({tokens: [assistant, think, nl], opened: true});
        expect(end([assistant!, think!, unthink!], true)).toEqual({tokens: [assistant, think, nl], opened: true});
        // The template's own "do not think" stays when the model is not to think.
        expect(end([assistant!, unthink!], true, {thinking: false})).toEqual({tokens: [assistant, unthink], opened: false});
    });

    it("never looks past a special token: an earlier turn's closing marker is not the new reply's", () => {
        expect(end([think!, 5, unthink!, assistant!], false)).toEqual({tokens: [think, 5, unthink, assistant], opened: false});
    });

    it("ends a new reply's prompt with an empty thought when the model must not think", () => {
        expect(end([assistant!], true, {thinking: false})).toEqual({tokens: [assistant, ...syntax(true).emptyThought], opened: false});
    });

    it("leaves a reply the client began alone, inside a thought if it left one open", () => {
        expect(end([assistant!, 5], true, {newReply: false, thinking: false, continuedReply: "Sure"})).toEqual({tokens: [assistant, 5], opened: false});
        expect(end([assistant!, think!, 5], true, {newReply: false, continuedReply: "<think>\nOkay"})).toMatchObject({opened: true});
        expect(end([assistant!, 5], true, {newReply: false, continuedReply: "<think>a</think>b"})).toMatchObject({opened: false});
    });
});
