import {describe, expect, it} from "vitest";
import {BadRequestError} from "../../../src/errors.js";
import {toConversation as messagesToConversation} from "../../../src/api/anthropic-messages/toConversation.js";
import {messagesRequestSchema} from "../../../src/api/anthropic-messages/messagesRequest.js";
import {responsesRequestSchema} from "../../../src/api/openai-responses/responsesRequest.js";
import {toConversation as responsesToConversation} from "../../../src/api/openai-responses/toConversation.js";
import {toChatHistory} from "../../../src/conversation/chatHistory.js";
import {imagePartsOf} from "../../../src/conversation/imageParts.js";
import {mediaMarkerFor} from "../../../src/engine/vision/mediaMarker.js";
import {loadImage} from "../../../src/images/imageInput.js";
import type {ImageLimits} from "../../../src/images/imageLimits.js";
import {thrownError} from "../support/thrownError.js";

const base64 = "iVBORw0KGgo=";

describe("Anthropic image blocks → image parts", () => {
    const translate = (content: unknown[]) => messagesToConversation(messagesRequestSchema.parse({model: "m", max_tokens: 5, messages: [{role: "user", content}]}));

    it("turns a base64 source into a data: URI and a url source into its URL", () => {
        const {conversation} = translate([
            {type: "text", text: "Compare"},
            {type: "image", source: {type: "base64", media_type: "image/png", data: base64}},
            {type: "image", source: {type: "url", url: "https://example.com/cat.jpg"}, cache_control: {type: "ephemeral"}}
        ]);
        expect(conversation.messages).toEqual([{role: "user", path: "messages[0]", parts: [
            {type: "text", text: "Compare"},
            {type: "image", url: `data:image/png;base64,${base64}`, path: "messages[0].content[1]", urlPath: "messages[0].content[1].source.data"},
            {type: "image", url: "https://example.com/cat.jpg", path: "messages[0].content[2]", urlPath: "messages[0].content[2].source.url"}
        ]}]);
    });

    it("remembers where each image part came from, beside a tool result in the same turn", () => {
        const content = [
            {type: "tool_result", tool_use_id: "t1", content: "done"},
            {type: "image", source: {type: "base64", media_type: "image/jpeg", data: base64}},
            {type: "text", text: "and"},
            {type: "image", source: {type: "url", url: "https://example.com/b.png"}}
        ];
        const {conversation} = translate(content);
        // The turn stays one message: its tool result is a part of it, not a message of its own.
        expect(conversation.messages.map((message) => message.parts.map((part) => part.type))).toEqual([["toolResult", "image", "text", "image"]]);
        expect(conversation.messages[0]!.parts).toMatchObject([
            {type: "toolResult", callId: "t1", path: "messages[0].content[0]"},
            {type: "image", path: "messages[0].content[1]", urlPath: "messages[0].content[1].source.data"},
            {type: "text", text: "and"},
            {type: "image", path: "messages[0].content[3]", urlPath: "messages[0].content[3].source.url"}
        ]);
        // The image's bytes are named by its source's field; the image block itself where a model cannot see.
        expect(imagePartsOf(conversation.messages)).toEqual([
            {url: `data:image/jpeg;base64,${base64}`, param: "messages[0].content[1].source.data", toolResult: false},
            {url: "https://example.com/b.png", param: "messages[0].content[3].source.url", toolResult: false}
        ]);
        const called = messagesToConversation(messagesRequestSchema.parse({model: "m", max_tokens: 5, messages: [
            {role: "assistant", content: [{type: "tool_use", id: "t1", name: "read", input: {}}]},
            {role: "user", content}
        ]})).conversation;
        expect(thrownError(BadRequestError, () => toChatHistory(called.messages, {images: false}))).toMatchObject({
            param: "messages[1].content[1]", code: "image_input_not_supported"
        });
    });

    // The template renders a turn's tool results (at their calls) before its own words; the numbers
    // still follow the parts' order, so each image keeps its own bytes.
    it("numbers a turn's images as the chat history places them: a user image before a tool result's image", () => {
        const {conversation} = messagesToConversation(messagesRequestSchema.parse({model: "m", max_tokens: 5, messages: [
            {role: "assistant", content: [{type: "tool_use", id: "t1", name: "screenshot", input: {}}]},
            {role: "user", content: [
                {type: "image", source: {type: "url", url: "https://example.com/user.png"}},
                {type: "tool_result", tool_use_id: "t1", content: [{type: "image", source: {type: "url", url: "https://example.com/tool.png"}}]}
            ]}
        ]}));
        const urls = imagePartsOf(conversation.messages).map((part) => part.url);
        const history = toChatHistory(conversation.messages, {images: true});
        // The marker numbered i stands where imagePartsOf's i-th image goes.
        expect(history[0]).toMatchObject({type: "model", response: [{type: "functionCall", result: mediaMarkerFor(urls.indexOf("https://example.com/tool.png"))}]});
        expect(history[1]).toEqual({type: "user", text: mediaMarkerFor(urls.indexOf("https://example.com/user.png"))});
    });

    it("refuses a media_type that is no image type, and sources other than base64 and url", () => {
        const pdf = thrownError(BadRequestError, () => translate([{type: "image", source: {type: "base64", media_type: "application/pdf", data: base64}}]));
        expect(pdf).toMatchObject({param: "messages[0].content[0].source.media_type", code: "invalid_value"});
        expect(pdf.message).toContain("'application/pdf' is not an image type");
        const file = thrownError(BadRequestError, () => translate([{type: "image", source: {type: "file", file_id: "file_011"}}]));
        expect(file).toMatchObject({param: "messages[0].content[0].source.type", message: expect.stringContaining("'file' are not supported")});
    });
});

describe("Responses input_image → image parts", () => {
    const translateItems = (input: unknown[]) => {
        const request = responsesRequestSchema.parse({model: "m", input});
        return responsesToConversation(request, request.input instanceof Array ? request.input.map((item, index) => ({item, param: `input[${index}]`})) : []);
    };
    const translate = (content: unknown[]) => translateItems([{role: "user", content}]);

    it("passes image_url on, data: URI or URL, with detail accepted", () => {
        const {conversation} = translate([
            {type: "input_text", text: "What is this?"},
            {type: "input_image", image_url: `data:image/png;base64,${base64}`, detail: "high"},
            {type: "input_image", image_url: "https://example.com/cat.jpg", detail: "auto"}
        ]);
        expect(conversation.messages[0]!.parts).toEqual([
            {type: "text", text: "What is this?"},
            {type: "image", url: `data:image/png;base64,${base64}`, path: "input[0].content[1]", urlPath: "input[0].content[1].image_url"},
            {type: "image", url: "https://example.com/cat.jpg", path: "input[0].content[2]", urlPath: "input[0].content[2].image_url"}
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

    it("names an image's 400 by the Responses field, with nothing renamed on the way", async () => {
        // input[3].content[2] is an image whose data is no image: the part itself carries its Responses field.
        const notAnImage = `data:image/png;base64,${Buffer.from("this is not an image").toString("base64")}`;
        const {conversation} = translateItems([
            {role: "user", content: "one"},
            {role: "assistant", content: "two"},
            {role: "user", content: "three"},
            {role: "user", content: [{type: "input_text", text: "a"}, {type: "input_text", text: "b"}, {type: "input_image", image_url: notAnImage}]}
        ]);
        const [part] = imagePartsOf(conversation.messages);
        expect(part).toEqual({url: notAnImage, param: "input[3].content[2].image_url", toolResult: false});
        const limits: ImageLimits = {maxBytes: 10_000, maxPixels: 10_000, maxImages: 2, fetchTimeoutMs: 1000, maxRedirects: 2, allowPrivateUrls: false};
        const error = await loadImage(part!.url, part!.param, limits, new AbortController().signal).then(() => null, (thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(BadRequestError);
        expect(error).toMatchObject({param: "input[3].content[2].image_url", code: "invalid_image", message: expect.stringMatching(/^Invalid 'input\[3\]\.content\[2\]\.image_url': /)});
    });
});
