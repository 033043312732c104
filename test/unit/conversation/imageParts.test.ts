import {describe, expect, it} from "vitest";
import {BadRequestError} from "../../../src/errors.js";
import {toChatRequest as messagesToChat} from "../../../src/api/anthropic-messages/toConversation.js";
import {messagesRequestSchema} from "../../../src/api/anthropic-messages/messagesRequest.js";
import {responsesRequestSchema} from "../../../src/api/openai-responses/responsesRequest.js";
import {errorParamInResponses} from "../../../src/api/openai-responses/errorParams.js";
import {toChatRequest as responsesToChat} from "../../../src/api/openai-responses/toConversation.js";
import {thrownError} from "../support/thrownError.js";

const base64 = "iVBORw0KGgo=";

describe("Anthropic image blocks → chat image parts", () => {
    const translate = (content: unknown[]) => messagesToChat(messagesRequestSchema.parse({model: "m", max_tokens: 5, messages: [{role: "user", content}]}));

    it("turns a base64 source into a data: URI and a url source into its URL", () => {
        const {request} = translate([
            {type: "text", text: "Compare"},
            {type: "image", source: {type: "base64", media_type: "image/png", data: base64}},
            {type: "image", source: {type: "url", url: "https://example.com/cat.jpg"}, cache_control: {type: "ephemeral"}}
        ]);
        expect(request.messages).toEqual([{role: "user", content: [
            {type: "text", text: "Compare"},
            {type: "image_url", image_url: {url: `data:image/png;base64,${base64}`}},
            {type: "image_url", image_url: {url: "https://example.com/cat.jpg"}}
        ]}]);
    });

    it("remembers where each image part came from, past tool results split into messages of their own", () => {
        const {request, imageParams} = translate([
            {type: "tool_result", tool_use_id: "t1", content: "done"},
            {type: "image", source: {type: "base64", media_type: "image/jpeg", data: base64}},
            {type: "text", text: "and"},
            {type: "image", source: {type: "url", url: "https://example.com/b.png"}}
        ]);
        expect(request.messages.map((message) => message.role)).toEqual(["tool", "user"]);
        expect(imageParams).toEqual(new Map([
            ["messages[1].content[0]", {block: "messages[0].content[1]", source: "messages[0].content[1].source.data"}],
            ["messages[1].content[2]", {block: "messages[0].content[3]", source: "messages[0].content[3].source.url"}]
        ]));
    });

    it("refuses a media_type that is no image type, and sources other than base64 and url", () => {
        const pdf = thrownError(BadRequestError, () => translate([{type: "image", source: {type: "base64", media_type: "application/pdf", data: base64}}]));
        expect(pdf).toMatchObject({param: "messages[0].content[0].source.media_type", code: "invalid_value"});
        expect(pdf.message).toContain("'application/pdf' is not an image type");
        const file = thrownError(BadRequestError, () => translate([{type: "image", source: {type: "file", file_id: "file_011"}}]));
        expect(file).toMatchObject({param: "messages[0].content[0].source.type", message: expect.stringContaining("'file' are not supported")});
    });
});

describe("Responses input_image → chat image parts", () => {
    const translate = (content: unknown[]) => {
        const request = responsesRequestSchema.parse({model: "m", input: [{role: "user", content}]});
        return responsesToChat(request, request.input instanceof Array ? request.input.map((item, index) => ({item, param: `input[${index}]`})) : []);
    };

    it("passes image_url on, data: URI or URL, with detail accepted", () => {
        const {request} = translate([
            {type: "input_text", text: "What is this?"},
            {type: "input_image", image_url: `data:image/png;base64,${base64}`, detail: "high"},
            {type: "input_image", image_url: "https://example.com/cat.jpg", detail: "auto"}
        ]);
        expect(request.messages[0]!.content).toEqual([
            {type: "text", text: "What is this?"},
            {type: "image_url", image_url: {url: `data:image/png;base64,${base64}`}},
            {type: "image_url", image_url: {url: "https://example.com/cat.jpg"}}
        ]);
    });

    it("answers a file_id with a 400 (no Files API), and an image without either", () => {
        expect(thrownError(BadRequestError, () => translate([{type: "input_image", file_id: "file-abc", detail: "auto"}]))).toMatchObject({
            param: "input[0].content[0].file_id", code: "invalid_value", message: expect.stringContaining("no Files API")
        });
        expect(thrownError(BadRequestError, () => translate([{type: "input_image", detail: "auto"}]))).toMatchObject({
            param: "input[0].content[0].image_url", code: "missing_required_parameter"
        });
    });

    it("names an image's 400 from the chat path by the Responses field", () => {
        const error = new BadRequestError("Invalid 'messages[1].content[2].image_url.url': the data is not an image.", {param: "messages[1].content[2].image_url.url", code: "invalid_image"});
        const renamed = errorParamInResponses(error, ["instructions", "input[3]"], {sourceParams: []} as never) as BadRequestError;
        expect(renamed).toMatchObject({param: "input[3].content[2].image_url", message: "Invalid 'input[3].content[2].image_url': the data is not an image.", code: "invalid_image"});
    });
});
