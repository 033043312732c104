import DOMPurify from "dompurify";
import {Marked} from "marked";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";

// A few common languages only: each one adds to the bundle, and an unknown one is shown plain.
for (const [name, language] of Object.entries({bash, cpp, css, javascript, json, python, rust, typescript, xml}))
    hljs.registerLanguage(name, language);

const marked = new Marked({gfm: true, breaks: false});
marked.use({
    renderer: {
        code({text, lang}) {
            const language = lang != null && hljs.getLanguage(lang) != null ? lang : null;
            const highlighted = language != null ? hljs.highlight(text, {language}).value : escapeHtml(text);
            // The copy button is wired by delegation in MessageView (no inline handlers under the CSP).
            return `<div class="code"><div class="code-bar"><span>${escapeHtml(language ?? lang ?? "text")}</span>`
                + `<button type="button" class="copy-code" aria-label="Copy code">Copy</button></div>`
                + `<pre><code class="hljs">${highlighted}</code></pre></div>`;
        }
    }
});

/** A model's Markdown as sanitised HTML: whatever the model writes, no script or handler survives DOMPurify. */
export function renderMarkdown(text: string): string {
    return DOMPurify.sanitize(marked.parse(text, {async: false}), {USE_PROFILES: {html: true}});
}

function escapeHtml(text: string): string {
    return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
