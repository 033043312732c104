import {describe, expect, it} from "vitest";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import type {TemplateMessage} from "../../../../src/engine/template/templateMessage.js";
import {CHATML_TEMPLATE, CHATML_TOOLS_TEMPLATE} from "../../../fixtures/gguf/chatTemplates.js";

const tokens = {bos: "<s>", eos: "</s>", addBos: true, addEos: false};
const chatml = new JinjaChatTemplate(CHATML_TEMPLATE, tokens);
const user = (content: string): TemplateMessage => ({role: "user", content});

/** A Gemma-2-like template: no system role (it raises), alternation checked, arguments only printed. */
const noSystem = "{{ bos_token }}{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}" +
    "<{{ m.role }}>{{ m.content }}{% for c in m.tool_calls or [] %}[{{ c.function.name }} {{ c.function.arguments }}]{% endfor %}</turn>{% endfor %}" +
    "{% if add_generation_prompt %}<assistant>{% endif %}";

describe("a model's own Jinja chat template, rendered as llama-server renders it", () => {
    it("ends with the generation prompt, and drops a BOS the tokenizer adds itself", () => {
        const template = new JinjaChatTemplate(`{{ bos_token }}${CHATML_TEMPLATE}`, tokens);
        expect(template.render({messages: [user("Hi")], thinking: true})).toBe("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
        const keeps = new JinjaChatTemplate(`{{ bos_token }}${CHATML_TEMPLATE}`, {...tokens, addBos: false});
        expect(keeps.render({messages: [user("Hi")], thinking: true})).toMatch(/^<s><\|im_start\|>/);
    });

    it("continues the client's own last assistant text: the turn's end is left for the model", () => {
        const text = chatml.render({messages: [user("Hi"), {role: "assistant", content: "Hello th"}], thinking: true}, {continueLast: true});
        expect(text).toBe("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello th");
    });

    it("passes enable_thinking, as llama.cpp always does", () => {
        const template = new JinjaChatTemplate("{{ enable_thinking }}|{{ add_generation_prompt }}", tokens);
        expect(template.render({messages: [], thinking: false})).toBe("false|true");
    });

    it("passes the client's variables over chatserve's, and a reasoning effort by both the names families read", () => {
        const template = new JinjaChatTemplate("{{ enable_thinking }}|{{ reasoning_effort }}|{{ reasoning_strength }}|{{ custom }}", tokens);
        expect(template.render({messages: [], thinking: true, variables: {enable_thinking: false, reasoning_effort: "high", custom: 7}})).toBe("false|high|high|7");
    });

    it("lists the client's tools exactly as sent, and only when there are some", () => {
        const template = new JinjaChatTemplate(CHATML_TOOLS_TEMPLATE, tokens);
        const parameters = {type: ["string", "null"], format: "date", default: null, examples: ["2026-11-29"]};
        const tools = [{type: "function" as const, function: {name: "day", description: "", parameters}}];
        expect(template.render({messages: [user("Hi")], tools, thinking: true})).toContain(JSON.stringify(parameters).replaceAll(",", ", ").replaceAll("\":", "\": "));
        expect(template.render({messages: [user("Hi")], tools: [], thinking: true})).not.toContain("<tools>");
    });

    it("opens the first user message with the system text where the template has no system role", () => {
        const template = new JinjaChatTemplate(noSystem, tokens);
        expect(template.capabilities.systemRole).toBe(false);
        expect(template.render({messages: [{role: "system", content: "Be brief."}, user("Hi")], thinking: true})).toBe("<user>Be brief.\nHi</turn><assistant>");
        expect(chatml.capabilities.systemRole).toBe(true);
    });

    it("passes a call's arguments parsed to a template that reads into them, and as sent to one that prints them", () => {
        const call: TemplateMessage = {role: "assistant", content: "", tool_calls: [{type: "function", function: {name: "f", arguments: "{\"a\":1}"}, id: "c1"}]};
        const printing = new JinjaChatTemplate(noSystem, tokens);
        expect(printing.capabilities.objectArguments).toBe(false);
        expect(printing.render({messages: [user("Hi"), call], thinking: true}, {continueLast: true})).toContain("[f {\"a\":1}]");
        const reading = new JinjaChatTemplate(CHATML_TOOLS_TEMPLATE, tokens);
        expect(reading.capabilities.objectArguments).toBe(true);
        expect(reading.render({messages: [user("Hi"), call, {role: "tool", content: "ok", tool_call_id: "c1"}], thinking: true})).toContain("\"arguments\": {\"a\": 1}");
    });

    it("finds the marker that ends an assistant's turn", () => {
        expect(chatml.turnEnd).toBe("<|im_end|>");
        expect(new JinjaChatTemplate(noSystem, tokens).turnEnd).toBe("</turn>");
    });

    it("runs templates as llama.cpp's Jinja does where @huggingface/jinja is stricter: a loop over nothing, a filter on nothing", () => {
        const template = new JinjaChatTemplate("{% for t in tools %}{{ t }}{% else %}none{% endfor %}|{{ missing | trim }}|{{ messages[0].content }}", tokens);
        expect(template.render({messages: [user("Hi")], thinking: true})).toBe("none||Hi");
    });
});

describe("Jinja as llama.cpp runs it, where @huggingface/jinja is stricter", () => {
    const render = (source: string) => new JinjaChatTemplate(source, tokens).render({messages: [user("Hi")], thinking: true});

    it("adds a string to a missing or null value as to an empty string (Command R+)", () => {
        expect(render("{{ 'a' + missing }}|{{ none ~ 'b' }}|{{ missing + 'c' }}")).toBe("a|b|c");
    });

    it("gives lists Python's append, pop, extend and insert (Kimi K2 queues call ids with them)", () => {
        expect(render("{% set q = namespace(ids=[]) %}{% set _ = q.ids.append('x') %}{% set _ = q.ids.extend(['y', 'z']) %}" +
            "{% set _ = q.ids.insert(0, 'w') %}{{ q.ids.pop(0) }}{{ q.ids.pop() }}{{ q.ids | length }}{{ q.ids.length }}")).toBe("wz22");
    });
});

describe("enable_thinking, on only where the template has a thought (as llama-server sets it)", () => {
    const qwen3Like = "{% for m in messages %}<|im_start|>{{ m.role }}\n{% if m.reasoning_content %}<think>\n{{ m.reasoning_content }}\n</think>\n\n{% endif %}" +
        "{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking is defined and not enable_thinking %}" +
        "<think>\n\n</think>\n\n{% endif %}{% endif %}";
    const announcesIt = "{% for m in messages %}<|user_start|>{{ m.content }}<|user_end|>{% endfor %}<|developer_start|>Deliberation: " +
        "{% if enable_thinking %}enabled{% else %}disabled{% endif %}<|developer_end|>{% if add_generation_prompt %}<|assistant_start|>{% endif %}";

    it("a template that writes a thought gets it on, and off when the request says so", () => {
        const template = new JinjaChatTemplate(qwen3Like, tokens);
        expect(template.hasThought).toBe(true);
        expect(template.render({messages: [user("Hi")], thinking: true})).toMatch(/assistant\n$/);
        expect(template.render({messages: [user("Hi")], thinking: false})).toMatch(/<think>\n\n<\/think>\n\n$/);
    });

    it("a template without one gets it off (Apertus would otherwise announce deliberation)", () => {
        const template = new JinjaChatTemplate(announcesIt, tokens);
        expect(template.hasThought).toBe(false);
        expect(template.render({messages: [user("Hi")], thinking: true})).toContain("Deliberation: disabled");
    });
});

describe("call ids a Mistral template takes", () => {
    it("renders chatserve's call_… ids as nine letters and digits, the same for a call and its result, every time", () => {
        const template = new JinjaChatTemplate("{% for m in messages %}{% for c in m.tool_calls or [] %}{% if c.id | length != 9 %}" +
            "{{ raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{% endif %}[{{ c.id }}]{% endfor %}" +
            "{% if m.tool_call_id %}({{ m.tool_call_id }}){% endif %}{% endfor %}", tokens);
        const messages: TemplateMessage[] = [user("Hi"), {role: "assistant", content: "", tool_calls: [{type: "function", function: {name: "f", arguments: "{}"}, id: "call_0a1b2c3d4e5f"}]},
            {role: "tool", content: "ok", tool_call_id: "call_0a1b2c3d4e5f"}];
        const text = template.render({messages, thinking: true});
        expect(text).toMatch(/^\[([a-zA-Z0-9]{9})\]\(\1\)$/);
        expect(template.render({messages, thinking: true})).toBe(text);
    });
});

describe("more of Jinja as llama.cpp runs it (Functionary, Apriel, MiniCPM5)", () => {
    const render = (source: string, context: Record<string, unknown> = {}) =>
        new JinjaChatTemplate(source, tokens).render({messages: [user("Hi")], thinking: true, variables: context});

    it("unpacks tuple literals in a loop, and filters a missing list as an empty one", () => {
        expect(render("{% for field, name in [('maximum', 'Maximum'), ('minimum', 'Minimum')] %}{{ field }}={{ name }};{% endfor %}")).toBe("maximum=Maximum;minimum=Minimum;");
        expect(render("{{ tools | selectattr('type', 'equalto', 'code') | list | length }}", {tools: null})).toBe("0");
    });

    it("writes a mapping's string as its JSON, and takes a list's min and max", () => {
        expect(render("{{ t | string }}", {t: {a: 1}})).toBe("{\"a\": 1}");
        expect(render("{{ n | min }} {{ n | max }}", {n: [3, 1, 2]})).toBe("1 3");
    });

    it("takes integer keys in a mapping literal, sorted and compared as integers (Seed-OSS's thinking-budget gears)", () => {
        const gears = "{% set g = {1024: 256, 0: 0, 512: 128} %}";
        expect(render(gears + "{% for k, v in g | dictsort %}{% if 600 <= k %}{{ k + 1 }}:{{ v }};{% endif %}{% endfor %}{{ g[512] }}")).toBe("1025:256;128");
        expect(render(gears + "{% for k, v in g.items() %}{{ k }},{% endfor %}{{ m[1:] | length }}", {m: [1, 2, 3]})).toBe("1024,0,512,2");
    });

    it("formats strings as Python's str.format does (Hunyuan 3 spells its markers with it)", () => {
        expect(render("{{ '<｜hy_eos{}｜>'.format(t) }} {{ '{1}-{0} {{x}}'.format('a', 2) }}", {t: ":opensource"})).toBe("<｜hy_eos:opensource｜> 2-a {x}");
    });
});
