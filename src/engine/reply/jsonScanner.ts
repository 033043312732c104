/**
 * Finds where one JSON value ends in text that arrives in pieces (token by token).
 *
 * Constrained decoding guarantees the text is valid JSON, so this only tracks nesting and strings;
 * it does not validate. The grammar lets a model write whitespace after the value forever, so the
 * generation is stopped at the exact character that closes the value instead of waiting for the
 * grammar to end.
 */
export class JsonScanner {
    private depth = 0;
    private inString = false;
    private escaped = false;
    private started = false;
    private finished = false;
    /** A bare value (number, true, false, null) at the top level ends at the first delimiter after it. */
    private inBareTopLevelValue = false;

    public get isComplete(): boolean {
        return this.finished;
    }

    public get isInString(): boolean {
        return this.inString;
    }

    /** Open brackets and strings, the most characters a minimal closing of the text needs. */
    public get openScopes(): number {
        return this.depth + (this.inString ? 1 : 0);
    }

    /**
     * Feeds text; returns how many of its characters belong to the value (all of them unless the
     * value ends inside this piece).
     */
    public push(text: string): number {
        if (this.finished)
            return 0;
        for (let index = 0; index < text.length; index++) {
            this.consume(text[index]!);
            // A bare value ends before the delimiter that showed its end; anything else at its closing character.
            if (this.finished)
                return this.inBareTopLevelValue ? index : index + 1;
        }
        return text.length;
    }

    private consume(char: string): void {
        if (this.inString) {
            if (this.escaped)
                this.escaped = false;
            else if (char === "\\")
                this.escaped = true;
            else if (char === "\"") {
                this.inString = false;
                this.closeIfTopLevel();
            }
            return;
        }
        if (this.inBareTopLevelValue) {
            if (/[\s,\]}]/.test(char))
                this.finished = true;
            return;
        }
        if (char === "\"") {
            this.inString = true;
            this.started = true;
        } else if (char === "{" || char === "[") {
            this.depth++;
            this.started = true;
        } else if (char === "}" || char === "]") {
            this.depth--;
            this.closeIfTopLevel();
        } else if (!this.started && !/\s/.test(char)) {
            this.started = true;
            this.inBareTopLevelValue = true;
        }
    }

    private closeIfTopLevel(): void {
        if (this.depth === 0)
            this.finished = true;
    }
}
