import {describe, expect, it} from "vitest";
import {toReplyPlan} from "../../../src/conversation/replyPlan.js";
import {BadRequestError} from "../../../src/errors.js";
import {chatCompletionRequestSchema} from "../../../src/api/openai-chat/chatCompletionRequest.js";
import {toConversation} from "../../../src/api/openai-chat/toConversation.js";
import {thrownError} from "../support/thrownError.js";

const weather = {type: "function", function: {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}};
const time = {type: "function", function: {name: "get_time"}};

const plan = (extra: Record<string, unknown>) =>
    toReplyPlan(toConversation(chatCompletionRequestSchema.parse({model: "m", messages: [{role: "user", content: "hi"}], ...extra})));

const rejection = (extra: Record<string, unknown>) => thrownError(BadRequestError, () => plan(extra));

describe("toReplyPlan", () => {
    it("is plain text without tools or response_format", () => {
        expect(plan({})).toMatchObject({format: {type: "text"}, needsToolSupport: false});
        expect(plan({response_format: {type: "text"}, tools: []})).toMatchObject({format: {type: "text"}, needsToolSupport: false});
    });

    it("defaults to tool_choice auto with parallel calls when tools are sent", () => {
        expect(plan({tools: [weather, time]})).toMatchObject({
            format: {
                type: "toolCalls",
                tools: [
                    {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, additionalProperties: false}},
                    {name: "get_time", parameters: {type: "object", properties: {}, additionalProperties: false}}
                ],
                choice: "auto",
                parallel: true
            },
            needsToolSupport: false
        });
    });

    it("keeps required and named choices, which need a template that renders tools", () => {
        expect(plan({tools: [weather], tool_choice: "required", parallel_tool_calls: false}))
            .toMatchObject({format: {choice: "required", parallel: false}, needsToolSupport: true});
        expect(plan({tools: [weather, time], tool_choice: {type: "function", function: {name: "get_time"}}}))
            .toMatchObject({format: {choice: {name: "get_time"}}, needsToolSupport: true});
    });

    it("with response_format, tool_choice auto is calls or that JSON; a reply that must be calls has no answer", () => {
        const json = {type: "json_schema", json_schema: {name: "a", schema: {type: "object", properties: {n: {type: "integer"}}, required: ["n"]}}} as const;
        expect(plan({tools: [weather], response_format: json}).format).toMatchObject({
            type: "toolCalls", choice: "auto", answer: {schema: {type: "object", properties: {n: {type: "integer"}}, additionalProperties: false}}
        });
        expect(plan({tools: [weather], response_format: {type: "json_object"}}).format).toMatchObject({choice: "auto", answer: {schema: null}});
        expect(plan({tools: [weather], tool_choice: "required", response_format: json}).format).not.toHaveProperty("answer");
        expect(plan({tools: [weather], response_format: {type: "text"}}).format).not.toHaveProperty("answer");
    });

    it("answers tool_choice none in text with the tools still rendered, or in JSON without them", () => {
        expect(plan({tools: [weather], tool_choice: "none"})).toMatchObject({format: {type: "toolCalls", choice: "none"}, needsToolSupport: false});
        expect(plan({tools: [weather], tool_choice: "none", response_format: {type: "json_object"}}).format).toEqual({type: "json", schema: null});
    });

    it("turns response_format into a JSON format", () => {
        expect(plan({response_format: {type: "json_object"}}).format).toEqual({type: "json", schema: null});
        expect(plan({response_format: {type: "json_schema", json_schema: {name: "n", strict: true, schema: {type: "array", items: {type: "integer"}}}}}).format)
            .toEqual({type: "json", schema: {type: "array", items: {type: "integer"}}});
    });

    it("reads tool parameters {} as any object, and refuses a root that is not an object", () => {
        const loose = plan({tools: [{type: "function", function: {name: "f", parameters: {}}}]});
        expect(loose.format).toMatchObject({tools: [{name: "f", parameters: {type: "object", additionalProperties: true}}]});
        expect(rejection({tools: [{type: "function", function: {name: "f", parameters: {type: "string"}}}]}))
            .toMatchObject({status: 400, param: "tools[0].function.parameters"});
    });

    it.each([
        [{tool_choice: "required"}, "tool_choice"],
        [{tools: [weather], tool_choice: {type: "function", function: {name: "nope"}}}, "tool_choice"],
        [{tools: [weather, weather]}, "tools"],
        [{tools: [{type: "function", function: {name: "f", strict: true, parameters: {type: "object", properties: {n: {type: "number", maximum: 3.5}}}}}]}, "tools[0].function.parameters.properties.n.maximum"],
        [{response_format: {type: "json_schema", json_schema: {name: "n", strict: true, schema: {type: "string", pattern: "\\bx"}}}}, "response_format.json_schema.schema.pattern"]
    ])("rejects %j with a 400 naming %s", (extra, param) => {
        expect(rejection(extra)).toMatchObject({status: 400, param});
    });

    it("reads schemas as hints unless strict: true, noting what the grammar went without, the same rule for tools and response_format", () => {
        const uri = {type: "object", properties: {url: {type: "string", format: "uri"}, body: {type: "string", maxLength: 100_000}}, required: ["url"]};
        const lenient = plan({
            tools: [{type: "function", function: {name: "fetch", parameters: uri}}],
            response_format: {type: "json_schema", json_schema: {name: "page", schema: uri}}
        });
        const enforced = {type: "object", properties: {url: {type: "string"}, body: {type: "string"}}, additionalProperties: false};
        expect(lenient.format).toMatchObject({tools: [{name: "fetch", parameters: enforced}], answer: {schema: enforced}});
        expect(lenient.schemas).toEqual({
            tools: [{param: "tools[0].function.parameters", strict: false}],
            json: {param: "response_format", strict: false},
            ignored: [
                {param: "tools[0].function.parameters.properties.url.format", reason: expect.stringContaining("'uri'")},
                {param: "tools[0].function.parameters.properties.body.maxLength", reason: expect.stringContaining("only up to")},
                {param: "response_format.json_schema.schema.properties.url.format", reason: expect.any(String)},
                {param: "response_format.json_schema.schema.properties.body.maxLength", reason: expect.any(String)}
            ]
        });
        // strict: false is OpenAI's default spelled out; only true refuses.
        expect(plan({tools: [{type: "function", function: {name: "fetch", strict: false, parameters: uri}}]}).schemas.ignored).toHaveLength(2);
        expect(rejection({tools: [{type: "function", function: {name: "fetch", strict: true, parameters: uri}}]}))
            .toMatchObject({status: 400, code: "unsupported_schema_keyword", param: "tools[0].function.parameters.properties.url.format"});
        expect(rejection({response_format: {type: "json_schema", json_schema: {name: "page", strict: true, schema: uri}}}))
            .toMatchObject({status: 400, code: "unsupported_schema_keyword", param: "response_format.json_schema.schema.properties.url.format"});
        // Each tool by its own flag: the strict one is enforced exactly, the other leniently.
        const mixed = plan({tools: [weather, {type: "function", function: {name: "fetch", parameters: uri}}].map((tool, index) =>
            ({...tool, function: {...tool.function, strict: index === 0}}))});
        expect(mixed.schemas.tools.map((origin) => origin.strict)).toEqual([true, false]);
    });

    it("keeps refusing, strict or not, a tool schema that is not an object and a schema that matches nothing", () => {
        expect(rejection({tools: [{type: "function", function: {name: "f", parameters: {type: "string", format: "uri"}}}]}))
            .toMatchObject({status: 400, param: "tools[0].function.parameters"});
        expect(rejection({tools: [{type: "function", function: {name: "f", parameters: {type: "object", properties: {a: {enum: []}}}}}]}))
            .toMatchObject({status: 400, code: "invalid_schema", param: "tools[0].function.parameters.properties.a.enum"});
    });
});
