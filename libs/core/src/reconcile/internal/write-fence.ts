/**
 * Whether reconciliations may still write (issue: a reconcile that outlives `Operator.stop()` or
 * the loss of leadership must not write). Each reconciliation takes a ticket when it starts; its
 * writes are allowed only while the fence is open and no close happened since the ticket was taken,
 * so a reconcile abandoned at a stop stays refused after processing starts again.
 */
export class WriteFence {
  private epoch = 0;
  private isOpen = true;

  /**
   * @param valid - whether writes may happen at all right now, asked on every write: with leader
   *   election, whether the lease is still valid (its renew deadline has not passed). An event loop
   *   blocked past the deadline runs no timer, so the step-down (which closes the fence) comes late;
   *   this refuses the writes made before it. Defaults to always.
   */
  constructor(private readonly valid: () => boolean = () => true) {}

  /** A ticket for a reconciliation starting now. */
  ticket(): number {
    return this.epoch;
  }

  /** Whether a reconciliation holding `ticket` may write. */
  allows(ticket: number): boolean {
    return this.isOpen && ticket === this.epoch && this.valid();
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
