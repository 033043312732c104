// Raw constraints on chat and legacy completions (llama-server's `grammar`, vLLM's `structured_outputs`
// and `guided_*`): what reaches the engine, and the 400s, in OpenAI's envelope, before anything is sent.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, MODEL} from "../../support/testApp.js";

const completion = (fields: object) => ({model: MODEL, prompt: "Say", max_tokens: 4, ...fields});

describe("raw constraints", () => {
    it.each([
        ["grammar", {grammar: "root ::= \"yes\" | \"no\""}, "root ::= \"yes\" | \"no\""],
        ["structured_outputs.grammar", {structured_outputs: {grammar: "root ::= [a-z]+"}}, "root ::= [a-z]+"],
        ["guided_grammar", {guided_grammar: "root ::= \"x\""}, "root ::= \"x\""],
        ["structured_outputs.regex", {structured_outputs: {regex: "\\d{3}"}}, "root ::= (([0-9]){3,3})\n"],
        ["guided_regex", {guided_regex: "a|b"}, "root ::= ([a] | [b])\n"],
        ["structured_outputs.choice", {structured_outputs: {choice: ["red", "green"]}}, "root ::= \"red\" | \"green\"\n"],
        ["guided_choice", {guided_choice: ["up", "down"]}, "root ::= \"up\" | \"down\"\n"]
    ])("compiles %s and generates under it, on chat and on completions", async (_, fields, grammar) => {
        const t = createTestApp();
        await request(t.app).post("/v1/chat/completions").send(chatRequest(fields)).expect(200);
        await request(t.app).post("/v1/completions").send(completion(fields)).expect(200);
        expect(t.model.compiledGrammars).toEqual([grammar, grammar]);
        expect(t.model.generations.map(({options}) => options.format)).toEqual([{type: "grammar", grammar}, {type: "grammar", grammar}]);
    });

    it("reads vLLM's JSON schema (object or text) as a JSON reply, strictly", async () => {
        const t = createTestApp();
        const schema = {type: "object", properties: {a: {type: "integer"}}, required: ["a"], additionalProperties: false};
        await request(t.app).post("/v1/chat/completions").send(chatRequest({structured_outputs: {json: schema}})).expect(200);
        await request(t.app).post("/v1/completions").send(completion({guided_json: JSON.stringify(schema)})).expect(200);
        for (const {options} of t.model.generations)
            expect(options.format).toMatchObject({type: "json", schema: {type: "object", required: ["a"]}});
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({guided_json: {type: "string", format: "no-such-format"}}));
        expect(res.status).toBe(400);
        expect(res.body.error.param).toBe("guided_json.format");
    });

    it("takes an empty grammar as none, as llama-server does", async () => {
        const t = createTestApp();
        await request(t.app).post("/v1/chat/completions").send(chatRequest({grammar: ""})).expect(200);
        expect(t.model.compiledGrammars).toEqual([]);
        expect(t.model.generations[0]!.options.format).toEqual({type: "text"});
    });

    it.each([
        ["two constraints", {grammar: "root ::= \"a\"", guided_regex: "a"}, "guided_regex", /only one constraint/],
        ["two inside structured_outputs", {structured_outputs: {regex: "a", choice: ["a"]}}, "structured_outputs.choice", /only one constraint/],
        ["a constraint and response_format", {guided_choice: ["a"], response_format: {type: "json_object"}}, "guided_choice", /response_format/],
        ["a constraint and tools", {
            grammar: "root ::= \"a\"", tools: [{type: "function", function: {name: "f", parameters: {type: "object", properties: {}}}}]
        }, "grammar", /tools/],
        ["a regex that is not regular", {structured_outputs: {regex: "(a)\\1"}}, "structured_outputs.regex", /backreference/],
        ["an empty choice list", {guided_choice: []}, "guided_choice", /at least one/],
        ["a schema that is not JSON", {guided_json: "{not json"}, "guided_json", /JSON text/],
        ["vLLM's structural tags", {structured_outputs: {structural_tag: {}}}, "structured_outputs.structural_tag", /not supported/]
    ])("refuses %s with a 400 naming the field", async (_, fields, param, message) => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest(fields));
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({type: "invalid_request_error", param: expect.stringContaining(param)});
        expect(res.body.error.message).toMatch(message);
        expect(t.model.generations).toHaveLength(0);
    });

    it("answers a grammar llama.cpp cannot parse with a 400 giving its reason, on chat and completions, streamed or not", async () => {
        const t = createTestApp();
        t.model.grammarRefusal = "line 2, column 1: expecting name at '\"b\"'";
        for (const [path, body] of [
            ["/v1/chat/completions", chatRequest({grammar: "root ::= \"a\"\n\"b\"", stream: true})],
            ["/v1/completions", completion({structured_outputs: {grammar: "root ::= \"a\"\n\"b\""}})]
        ] as const) {
            const res = await request(t.app).post(path).send(body);
            expect(res.status).toBe(400);
            expect(res.body.error).toMatchObject({code: "invalid_grammar"});
            expect(res.body.error.message).toContain("llama.cpp cannot parse the grammar: line 2, column 1: expecting name at '\"b\"'");
        }
        expect(t.model.generations).toHaveLength(0);
        expect(t.model.activeLeases).toBe(0);
    });
});
