/** A pattern the grammar cannot enforce, and why; the schema check turns it into a 400. */
export class PatternError extends Error {}

/** The reading position in a pattern, shared by the parser of its structure and that of its classes. */
export class PatternCursor {
    private position = 0;

    public constructor(private readonly pattern: string) {}

    public get offset(): number {
        return this.position;
    }

    public next(): string {
        if (this.atEnd())
            throw new PatternError("the pattern ends too early");
        return this.pattern[this.position++]!;
    }

    public peek(ahead = 0): string | undefined {
        return this.pattern[this.position + ahead];
    }

    public eat(char: string): boolean {
        if (this.pattern[this.position] !== char)
            return false;
        this.position++;
        return true;
    }

    /** Reads what `shape` (anchored with `^`) matches here, or nothing. */
    public take(shape: RegExp): RegExpExecArray | null {
        const match = shape.exec(this.pattern.slice(this.position));
        if (match != null)
            this.position += match[0].length;
        return match;
    }

    /** The code point whose first unit `next()` just read, taking its low surrogate too. */
    public codePointRead(): number {
        const codePoint = this.pattern.codePointAt(this.position - 1)!;
        if (codePoint > 0xffff)
            this.position++;
        return codePoint;
    }

    public atEnd(): boolean {
        return this.position >= this.pattern.length;
    }
}
