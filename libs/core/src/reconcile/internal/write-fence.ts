/**
 * Whether reconciliations may still write (issue: a reconcile that outlives `Operator.stop()` or
 * the loss of leadership must not write). Each reconciliation takes a ticket when it starts; its
 * writes are allowed only while the fence is open and no close happened since the ticket was taken,
 * so a reconcile abandoned at a stop stays refused after processing starts again.
 */
export class WriteFence {
  private epoch = 0;
  private isOpen = true;

  /** A ticket for a reconciliation starting now. */
  ticket(): number {
    return this.epoch;
  }

  /** Whether a reconciliation holding `ticket` may write. */
  allows(ticket: number): boolean {
    return this.isOpen && ticket === this.epoch;
  }

  /** Refuses every write of reconciliations started so far, and of new ones until {@link open}. */
  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.epoch++;
  }

  /** Lets reconciliations started from now on write. */
  open(): void {
    this.isOpen = true;
  }
}
