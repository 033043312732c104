/**
 * How the residency ledger (residencyLedger.ts) tells the others that a model moved from one state
 * to another: it runs `onChange` (loadQueue.ts's pump, which may move models in turn) once per
 * burst of transitions, then wakes whoever waits in `changed()` (a request waiting for a model to
 * go or for room). Once `closed()` (shutdown), `onChange` no longer runs; waiters still wake.
 */
export class TransitionSignal {
    private wake: () => void = () => {};
    private next: Promise<void> = this.newTurn();
    private notifying = false;
    private again = false;

    public constructor(private readonly onChange: () => void, private readonly closed: () => boolean) {}

    /** Resolves at the next transition. */
    public changed(): Promise<void> {
        return this.next;
    }

    /** Runs `onChange` once per burst of transitions (a transition inside it runs it again after), then wakes the waiters. */
    public notify(): void {
        if (this.notifying) {
            this.again = true;
            return;
        }
        this.notifying = true;
        try {
            do {
                this.again = false;
                if (!this.closed())
                    this.onChange();
            } while (this.again);
        } finally {
            this.notifying = false;
        }
        const wake = this.wake;
        this.next = this.newTurn();
        wake();
    }

    private newTurn(): Promise<void> {
        return new Promise<void>((resolve) => this.wake = resolve);
    }
}
