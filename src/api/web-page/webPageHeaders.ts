/**
 * The chat page's Content-Security-Policy: scripts, styles and connections from chatserve itself
 * only (no inline script or style, no CDN, no other origin); images also from data:/blob: URLs
 * (attached images are data: URLs). No framing, no <base>, no form posts elsewhere.
 */
export const webPageCsp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
].join("; ");

export const webPageHeaders: Record<string, string> = {
    "Content-Security-Policy": webPageCsp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    // The bundle's names do not change between builds: a browser checks before reusing its copy.
    "Cache-Control": "no-cache"
};

/**
 * Whether `GET /` comes from a browser: one that names text/html in Accept. Clients that probe `/`
 * (Claude Code, Ollama's "is it running" check, curl) send none or `*\/*` and keep the JSON answer.
 */
export function wantsHtml(accept: string | undefined): boolean {
    return accept != null && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}
