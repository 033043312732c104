/** Bytes as the models panel shows them: "512 MB", "1.2 GB". */
export function formatBytes(bytes: number): string {
    if (bytes < 1024 * 1024)
        return `${Math.round(bytes / 1024)} KB`;
    if (bytes < 1024 ** 3)
        return `${Math.round(bytes / 1024 ** 2)} MB`;
    return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** "until 14:05" for a keep-alive expiry in Unix seconds, "kept loaded" when it has none. */
export function formatUntil(expiresAt: number | null, locale?: string): string {
    if (expiresAt == null)
        return "kept loaded";
    return `until ${new Date(expiresAt * 1000).toLocaleTimeString(locale, {hour: "2-digit", minute: "2-digit"})}`;
}

/** "32k" context, as a picker label. */
export function formatContext(tokens: number | null): string {
    if (tokens == null)
        return "context unknown";
    return tokens >= 1024 ? `${Math.round(tokens / 1024)}k context` : `${tokens} context`;
}
