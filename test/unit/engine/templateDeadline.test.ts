import {Template} from "@huggingface/jinja";
import {describe, expect, it} from "vitest";
import {maxRangeLength, TemplateDeadlineError, templateRenderMs} from "../../../src/engine/templateDeadline.js";

describe("every Jinja render is bounded", () => {
    it("stops a loop that runs past the deadline", () => {
        const endless = new Template("{% for i in range(90000) %}{% for j in range(90000) %}{{ '' }}{% endfor %}{% endfor %}");
        expect(() => endless.render({})).toThrow(`did not finish within ${templateRenderMs} ms`);
    });

    it("refuses range() longer than a template needs, before building it", () => {
        expect(() => new Template("{% for i in range(100000000) %}{% endfor %}").render({})).toThrow(`range() of 100000000 numbers, more than the ${maxRangeLength}`);
        expect(() => new Template("{{ range(5, 200005)|length }}").render({})).toThrow(TemplateDeadlineError);
    });

    it("leaves ordinary templates alone, and each render gets its own allowance", () => {
        const template = new Template("{% for message in messages %}<|{{ message.role }}|>{{ message.content }}{% endfor %}{{ range(3)|join(',') }}{{ range(1, 7, 2)|join(',') }}");
        const messages = Array.from({length: 200}, (_, index) => ({role: index % 2 === 0 ? "user" : "assistant", content: `turn ${index}`}));
        for (let round = 0; round < 3; round++)
            expect(template.render({messages})).toMatch(/^<\|user\|>turn 0.*turn 1990,1,21,3,5$/s);
    });
});
