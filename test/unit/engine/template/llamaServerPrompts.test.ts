import {afterAll, beforeAll, describe, expect, it, vi} from "vitest";
import {parityRequests} from "../../../../bench/templateRequests.js";
import {toConversation} from "../../../../src/api/openai-chat/toConversation.js";
import type {ChatCompletionRequest} from "../../../../src/api/openai-chat/chatCompletionRequest.js";
import {toTemplateMessages, toTemplateTools} from "../../../../src/conversation/templateMessages.js";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import captured from "../../../fixtures/templates/llamaServerPrompts.json" with {type: "json"};
import {familyTemplate} from "../../../fixtures/templates/familyTemplates.js";

/**
 * chatserve's prompt for each family's official template and each request bench:templates sends,
 * pinned to what llama-server --jinja rendered for the same (bench/captureTemplatePrompts.ts, on
 * the tiny model whose BOS is <s> and EOS <|im_end|>). Dates in templates are those of the capture.
 */
beforeAll(() => {
    vi.useFakeTimers({toFake: ["Date"]});
    vi.setSystemTime(new Date(`${captured.capturedOn}T12:00:00Z`));
});
afterAll(() => vi.useRealTimers());

const templates = new Map<string, JinjaChatTemplate>();
const template = (name: string) => templates.get(name) ?? templates.set(name, new JinjaChatTemplate(familyTemplate(name), {bos: "<s>", eos: "<|im_end|>", addBos: true, addEos: false})).get(name)!;

describe("chatserve's prompt is llama-server's, family by family", () => {
    it.each(captured.prompts.map((entry) => [entry.template, entry.request, entry.prompt] as const))("%s: %s", (name, requestName, prompt) => {
        const body = parityRequests.find((request) => request.name === requestName)!.body;
        const conversation = toConversation({model: "m", ...body} as ChatCompletionRequest);
        const rendered = template(name).render({
            messages: toTemplateMessages(conversation.messages), tools: toTemplateTools(conversation.tools), thinking: conversation.thinking,
            ...(conversation.templateVariables == null ? {} : {variables: conversation.templateVariables})
        });
        expect(rendered).toBe(prompt);
    });

    it("covers every family template and request", () => {
        expect(captured.prompts.length).toBeGreaterThanOrEqual(80);
    });
});
